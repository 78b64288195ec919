// The gateway's Prometheus metrics, in a Registry of their own (never prom-client's global one: tests start many
// gateways in one process). Everything is observed once per request when its record is final, never per chunk
// on the hot path. Names follow Prometheus conventions: `tokenmeter_` prefix, base units (seconds), `_total`.
// Below the class: the bounded model label, the event loop's busy time, how the gauges combine across workers
// and the requests lost with a worker.
import { performance } from 'node:perf_hooks';
import { type Aggregator, Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import {
  FIRST_TOKEN_BUCKETS_S,
  OVERHEAD_BUCKETS_S,
  PER_TOKEN_BUCKETS_S,
  REQUEST_BUCKETS_S,
} from '../../shared/latency-buckets.js';
import { NO_MODEL_LABEL } from '../../shared/no-model-label.js';
import { LOST_REASONS, type LostReason, type RecordsWriter } from '../../shared/records-writer.js';
import type { SpanExport } from '../../tracing/span-export.js';
import { MIRROR_SKIP_REASONS, type MirrorSkipReason } from '../exchange/mirrors.js';
import { escapeControlCharacters } from '../logs/pretty-log.js';
import { GAP_BUCKET_LABELS, type RequestRecord, type RequestRole } from '../records/record.js';
import type { PathFix } from '../request-path/client-path.js';
import type { GatewayState } from '../run-state.js';
import { CLIENT_ERROR_REASONS, type ClientErrorReason } from '../serve/client-errors.js';
import { CountedHistogram, type CountedSeries, type SeriesObserver } from './counted-histogram.js';

// Per-request series are by upstream, model and role (`primary`, or `mirror` for a route's copy: record.ts).

export interface GatewayMetricsOptions {
  /** Model names from the configuration: always their own label value. */
  readonly configuredModels: readonly string[];
  /** Distinct other model names labelled before they are folded into `other`. */
  readonly maxModels: number;
  /** Read at scrape time for the in-flight gauge. */
  readonly state: Readonly<GatewayState>;
  /** Read at scrape time for the lost-records counter; null when no records file is written. */
  readonly records: RecordsWriter | null;
  /** Read at scrape time for the dropped-spans counter; null when spans are not exported. */
  readonly spans: SpanExport | null;
}

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly #labels: ModelLabels;
  readonly #series = new Map<string, Series>();
  readonly #requests = new Counter({
    name: 'tokenmeter_requests_total',
    help: 'Requests finished, by upstream, model, role, outcome and status class',
    labelNames: ['upstream', 'model', 'role', 'outcome', 'status_class'],
    registers: [this.registry],
  });
  readonly #ttft = histogram(
    this.registry,
    'tokenmeter_time_to_first_token_seconds',
    'Received to first content chunk (TTFT)',
    FIRST_TOKEN_BUCKETS_S,
  );
  readonly #ttfo = histogram(
    this.registry,
    'tokenmeter_time_to_first_output_token_seconds',
    'Received to first answer chunk, reasoning excluded (TTFO; equals TTFT for a model that does not reason)',
    FIRST_TOKEN_BUCKETS_S,
  );
  readonly #ttfb = histogram(
    this.registry,
    'tokenmeter_time_to_first_byte_seconds',
    'Received to upstream response headers (TTFB)',
    FIRST_TOKEN_BUCKETS_S,
  );
  // Fed with each request's gap counts (record.gapCounts) in one call, not one observation per chunk.
  readonly #gap = new CountedHistogram(
    'tokenmeter_inter_token_gap_seconds',
    'Gap between consecutive content chunks (one sample per chunk, as vLLM ITL)',
    GAP_BUCKET_LABELS,
    this.registry,
  );
  readonly #tpot = histogram(
    this.registry,
    'tokenmeter_time_per_output_token_seconds',
    'TPOT: (last token - first token) / (output tokens - 1)',
    PER_TOKEN_BUCKETS_S,
  );
  readonly #e2e = histogram(
    this.registry,
    'tokenmeter_request_duration_seconds',
    'Received to response closed (E2E)',
    REQUEST_BUCKETS_S,
  );
  // By upstream only.
  readonly #overhead = histogram(
    this.registry,
    'tokenmeter_gateway_overhead_seconds',
    'Time spent inside the gateway rather than waiting on the upstream',
    OVERHEAD_BUCKETS_S,
  );
  readonly #connectWait = histogram(
    this.registry,
    'tokenmeter_upstream_connection_wait_seconds',
    'Request handed to the HTTP client until written to a socket (connection set-up and pool queueing)',
    OVERHEAD_BUCKETS_S,
  );
  readonly #tokens = new Counter({
    name: 'tokenmeter_tokens_total',
    help: 'Tokens by direction (input = prompt, output = completion; reasoning = the part of output that was reasoning), from usage or estimated',
    labelNames: ['upstream', 'model', 'role', 'type'],
    registers: [this.registry],
  });
  readonly #cost = new Counter({
    name: 'tokenmeter_cost_total',
    help: 'Cost of input and output tokens at the configured prices (upstreams[].prices), in the currency labelled',
    labelNames: ['upstream', 'model', 'currency'],
    registers: [this.registry],
  });
  readonly #pathFixes = new Counter({
    name: 'tokenmeter_path_fixes_total',
    help: 'Client paths the gateway had to fix, by kind of fix',
    labelNames: ['fix'],
    registers: [this.registry],
  });
  readonly #mirrorSkipped = new Counter({
    name: 'tokenmeter_mirror_skipped_total',
    help: 'Requests sampled for a mirror copy but not copied, by reason (busy, side_effects, shutting_down)',
    labelNames: ['reason'],
    registers: [this.registry],
  });
  readonly #clientErrors = new Counter({
    name: 'tokenmeter_client_errors_total',
    help: "Connections Node's HTTP parser refused before a request existed (no record), by reason",
    labelNames: ['reason'],
    registers: [this.registry],
  });
  readonly #connectionsRefused = new Counter({
    name: 'tokenmeter_client_connections_refused_total',
    help: 'Client connections closed unanswered because clientLimits.maxConnections were open',
    registers: [this.registry],
  });

  constructor(options: GatewayMetricsOptions) {
    // Every reason shown from the start, at 0, so a rate over the first refusal is not missing its start.
    for (const reason of CLIENT_ERROR_REASONS) this.#clientErrors.inc({ reason }, 0);
    const { state, records, spans } = options;
    this.#labels = new ModelLabels(options.configuredModels, options.maxModels);
    new Gauge({
      name: 'tokenmeter_requests_in_flight',
      help: 'Requests received and not yet finished',
      registers: [this.registry],
      // Across `serve --workers N`, the gateway's in-flight requests are every worker's.
      aggregator: 'sum',
      collect() {
        this.set(state.inFlight);
      },
    });
    new Gauge({
      name: 'tokenmeter_mirror_requests_in_flight',
      help: 'Mirror copies sent and not yet finished',
      registers: [this.registry],
      collect() {
        this.set(state.mirrorsInFlight);
      },
    });
    // Every reason from the start (at 0), so a dashboard has the series before the first skip.
    for (const reason of MIRROR_SKIP_REASONS) this.#mirrorSkipped.inc({ reason }, 0);
    // A counter read from the writer's own counts at scrape time: they only ever grow, so rate() and
    // increase() work, and nothing is counted twice on the hot path. Every reason is exported from the start (at
    // 0), so increase() sees the first loss and a dashboard has a series before anything went wrong.
    const lostCounted: Record<LostReason, number> = { disk_full: 0, write_error: 0, queue_full: 0 };
    new Counter({
      name: 'tokenmeter_records_lost_total',
      help: 'Request records that could not be written since start, by reason (disk_full, write_error, queue_full)',
      labelNames: ['reason'],
      registers: [this.registry],
      collect() {
        for (const reason of LOST_REASONS) {
          const lost = records?.stats.lost[reason] ?? 0;
          this.inc({ reason }, lost - lostCounted[reason]);
          lostCounted[reason] = lost;
        }
      },
    });
    // A single process cannot count its own death: 0 here, the primary's count under --workers.
    registerRequestsLost(this.registry, () => 0);
    // Read from the span exporter's counts the same way; both reasons exist from the start, at 0 with export off.
    const droppedCounted = { queue_full: 0, export_failed: 0 };
    new Counter({
      name: 'tokenmeter_spans_dropped_total',
      help: 'Request spans not delivered to the OTLP collector since start, by reason (queue_full, export_failed)',
      labelNames: ['reason'],
      registers: [this.registry],
      collect() {
        const counts = spans?.counts ?? { dropped: 0, failed: 0 };
        this.inc({ reason: 'queue_full' }, counts.dropped - droppedCounted.queue_full);
        this.inc({ reason: 'export_failed' }, counts.failed - droppedCounted.export_failed);
        droppedCounted.queue_full = counts.dropped;
        droppedCounted.export_failed = counts.failed;
      },
    });
    // CPU, memory, the event loop (registerEventLoopMetrics) and GC of the gateway process, so overhead can be
    // explained by what the process was doing. Prefixed so they never clash with another exporter's process_* on
    // the same Prometheus.
    collectDefaultMetrics({
      register: this.registry,
      prefix: 'tokenmeter_',
      eventLoopMonitoringPrecision: LAG_MONITOR_PERIOD_MS,
    });
    registerEventLoopMetrics(this.registry);
    // prom-client also exports the active handle/request/resource counts as gauges named *_total, which breaks the
    // naming rule (only counters end in _total; promtool flags them). The per-type gauges without the suffix
    // carry the same numbers, so the misnamed sums are dropped.
    for (const kind of ['handles', 'requests', 'resources']) {
      this.registry.removeSingleMetric(`tokenmeter_nodejs_active_${kind}_total`);
    }
    chooseWorkerAggregators(this.registry);
  }

  pathFixed(fix: PathFix): void {
    this.#pathFixes.inc({ fix });
  }

  clientError(reason: ClientErrorReason): void {
    this.#clientErrors.inc({ reason });
  }

  connectionRefused(): void {
    this.#connectionsRefused.inc();
  }

  mirrorSkipped(reason: MirrorSkipReason): void {
    this.#mirrorSkipped.inc({ reason });
  }

  observe(record: RequestRecord): void {
    const series = this.#seriesOf(
      record.upstream ?? 'none',
      this.#labels.label(record.modelAsked),
      record.role,
    );
    this.#outcomeSeries(series, record.outcome, statusClass(record.status)).inc();
    series.e2e.observe(record.e2eMs / 1000);
    // A mirror copy is forwarded nowhere: its overhead is not what a client pays for the gateway.
    if (record.role === 'primary') series.overhead.observe(record.gatewayOverheadMs / 1000);
    if (record.upstreamRequestMs !== null && record.upstreamSocketWriteMs !== null) {
      series.connectWait.observe((record.upstreamSocketWriteMs - record.upstreamRequestMs) / 1000);
    }
    if (record.ttfbMs !== null) series.ttfb.observe(record.ttfbMs / 1000);
    if (record.ttftMs !== null) series.ttft.observe(record.ttftMs / 1000);
    if (record.ttfoMs != null) series.ttfo.observe(record.ttfoMs / 1000);
    if (record.tpotMs !== null) series.tpot.observe(record.tpotMs / 1000);
    const gaps = record.gapCounts;
    if (gaps !== null) series.gap.add(gaps.counts, gaps.sumMs / 1000);
    if (record.promptTokens !== null) series.inputTokens.inc(record.promptTokens);
    if (record.outputTokens !== null) series.outputTokens.inc(record.outputTokens);
    if (record.reasoningTokens != null && record.reasoningTokens > 0)
      series.reasoningTokens.inc(record.reasoningTokens);
    if (record.currency !== null && (record.costInput !== null || record.costOutput !== null)) {
      // Looked up by its labels: the currency belongs to the price, not to the upstream and model of the series.
      this.#cost.inc(
        { upstream: series.upstream, model: series.model, currency: record.currency },
        (record.costInput ?? 0) + (record.costOutput ?? 0),
      );
    }
  }

  // prom-client hashes a label set on every call, a child's too; a request's series are looked up once by upstream,
  // model and role instead, from a map as bounded as the labels themselves (configured upstreams, ModelLabels'
  // cap, 2 roles), and the histograms' observers hold their series (counted-histogram.ts).
  #seriesOf(upstream: string, model: string, role: RequestRole): Series {
    const key = `${upstream}\n${model}\n${role}`;
    let series = this.#series.get(key);
    if (series === undefined) {
      series = {
        upstream,
        model,
        role,
        byOutcome: new Map(),
        e2e: this.#e2e.observer({ upstream, model, role }),
        ttfb: this.#ttfb.observer({ upstream, model, role }),
        ttft: this.#ttft.observer({ upstream, model, role }),
        ttfo: this.#ttfo.observer({ upstream, model, role }),
        tpot: this.#tpot.observer({ upstream, model, role }),
        gap: this.#gap.series({ upstream, model, role }),
        overhead: this.#overhead.observer({ upstream }),
        connectWait: this.#connectWait.observer({ upstream }),
        inputTokens: this.#tokens.labels(upstream, model, role, 'input'),
        outputTokens: this.#tokens.labels(upstream, model, role, 'output'),
        reasoningTokens: this.#tokens.labels(upstream, model, role, 'reasoning'),
      };
      this.#series.set(key, series);
    }
    return series;
  }

  #outcomeSeries(series: Series, outcome: string, statusClassLabel: string): CounterChild {
    const key = `${outcome} ${statusClassLabel}`;
    let child = series.byOutcome.get(key);
    if (child === undefined) {
      child = this.#requests.labels(series.upstream, series.model, series.role, outcome, statusClassLabel);
      series.byOutcome.set(key, child);
    }
    return child;
  }
}

type CounterChild = ReturnType<Counter<string>['labels']>;

/** One upstream, model and role's series, looked up once per request. */
interface Series {
  readonly upstream: string;
  readonly model: string;
  readonly role: RequestRole;
  /** The request counter's child per outcome and status class. */
  readonly byOutcome: Map<string, CounterChild>;
  readonly e2e: SeriesObserver;
  readonly ttfb: SeriesObserver;
  readonly ttft: SeriesObserver;
  readonly ttfo: SeriesObserver;
  readonly tpot: SeriesObserver;
  readonly gap: CountedSeries;
  readonly overhead: SeriesObserver;
  readonly connectWait: SeriesObserver;
  readonly inputTokens: CounterChild;
  readonly outputTokens: CounterChild;
  readonly reasoningTokens: CounterChild;
}

/** A histogram observed once per request, shown as prom-client shows one (counted-histogram.ts). */
function histogram(
  registry: Registry,
  name: string,
  help: string,
  buckets: readonly number[],
): CountedHistogram {
  return new CountedHistogram(name, help, [...buckets.map(String), '+Inf'], registry);
}

// Bounded metric labels: model names come from clients, so only the configured names plus the first
// `maxModels` others get their own label value; the rest share `other`. Ids, keys and URLs are never labels.
// prom-client escapes a label value's backslash, quote and line feed only, so the control characters of a
// client's model name (CR, ESC, NUL...) are written as `\uXXXX` text before it becomes a label.
export const OTHER_MODEL = 'other';

export class ModelLabels {
  readonly #allowed: Set<string>;
  readonly #max: number;
  #extra = 0;

  constructor(configured: readonly string[], maxModels: number) {
    this.#allowed = new Set(configured);
    this.#max = maxModels;
  }

  label(model: string | null): string {
    if (model === null) return NO_MODEL_LABEL;
    if (this.#allowed.has(model)) return model;
    const shown = escapeControlCharacters(model);
    if (shown !== model) return this.label(shown);
    if (this.#extra >= this.#max || model.length > 200) return OTHER_MODEL;
    this.#extra++;
    this.#allowed.add(model);
    return model;
  }
}

export function statusClass(status: number): string {
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'none';
}

// The gateway's event loop, as a load signal that costs nothing between scrapes. prom-client's default metrics
// sample the loop's delay with a libuv timer firing every 10 ms: those 100 wake-ups a second were about half of an
// idle gateway's CPU (7 of 14 ms a second) and, in bench/gateway-overhead.ts at concurrency 16, about 0.18 ms of
// CPU per proxied request (2.18 against 2.37 ms, side by side, 2026-12-06). A delay sampled every 10 ms also reads 10 ms
// when nothing is late, so its percentiles carried the sampling period rather than the wait.
//
// What replaces them: libuv's own count of the time the loop spent running callbacks (Node's
// `performance.eventLoopUtilization()`), read only when scraped, as a counter; `rate()` of it is the loop's
// utilization, 1 meaning saturated. prom-client's scrape-time `tokenmeter_nodejs_eventloop_lag_seconds` (one
// setImmediate per scrape) stays.
/** prom-client's delay-histogram gauges, removed from the registry (see above). */
export const SAMPLED_LAG_GAUGES = ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'].map(
  (stat) => `tokenmeter_nodejs_eventloop_lag_${stat}_seconds`,
);

/**
 * prom-client always starts its delay monitor and has no option to leave it out: sampling once a second, it costs
 * one wake-up a second, and its gauges are removed.
 */
export const LAG_MONITOR_PERIOD_MS = 1000;

export function registerEventLoopMetrics(registry: Registry): void {
  for (const name of SAMPLED_LAG_GAUGES) registry.removeSingleMetric(name);
  let countedMs = 0;
  new Counter({
    name: 'tokenmeter_eventloop_busy_seconds_total',
    help: "Seconds the gateway's event loop spent running callbacks rather than waiting for events (libuv's event-loop utilization); rate() is the loop's utilization, 1 = saturated",
    registers: [registry],
    collect() {
      const busyMs = performance.eventLoopUtilization().active;
      this.inc((busyMs - countedMs) / 1000);
      countedMs = busyMs;
    },
  });
}

// How a gauge of one gateway worker combines into the whole gateway's /metrics under `serve --workers N`, where
// prom-client's choice (set when it defines the metric; 'sum' unless said otherwise) does not fit. Counters and
// histograms are always summed, histograms bucket by bucket. Gauges kept at 'sum' on purpose: in-flight requests
// (set at its definition), memory, heap, open file descriptors, active handles: the gateway's total.
const CHOSEN: Readonly<Record<string, Aggregator>> = {
  // prom-client omits it from an aggregate; the gateway is as old as its oldest worker.
  tokenmeter_process_start_time_seconds: 'min',
  // prom-client averages it; the requests that wait are those on the worst worker, so the worst is shown.
  tokenmeter_nodejs_eventloop_lag_seconds: 'max',
};

/** Sets the aggregator of each gauge in CHOSEN that `registry` holds. */
export function chooseWorkerAggregators(registry: Registry): void {
  for (const [name, aggregator] of Object.entries(CHOSEN)) {
    const metric = registry.getSingleMetric(name) as { aggregator?: Aggregator } | undefined;
    if (metric !== undefined) metric.aggregator = aggregator;
  }
}

// tokenmeter_requests_lost_total{reason}: requests that can have no record, because the process measuring them
// is gone. Its one reason today is `worker_exit`: under `serve --workers N`, the primary counts the requests a
// worker held when it died (killed, crashed), from what the worker last reported (cluster/worker.ts). Every
// gateway's registry defines it at 0, so a single process and each worker export the series from the start and a
// dashboard has it before the first loss; the primary adds its own count when it aggregates the workers' pages.
export const REQUESTS_LOST_REASONS = ['worker_exit'] as const;
export type RequestsLostReason = (typeof REQUESTS_LOST_REASONS)[number];

/** Defines the counter in `registry`, read at scrape time from `read` (which only grows). */
export function registerRequestsLost(registry: Registry, read: (reason: RequestsLostReason) => number): void {
  const counted: Record<RequestsLostReason, number> = { worker_exit: 0 };
  new Counter({
    name: 'tokenmeter_requests_lost_total',
    help: 'Requests that have no record because the process serving them is gone, by reason (worker_exit: a worker of serve --workers died holding them; counted by the primary from what the worker last reported)',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      for (const reason of REQUESTS_LOST_REASONS) {
        const now = read(reason);
        this.inc({ reason }, now - counted[reason]);
        counted[reason] = now;
      }
    },
  });
}
