// The simulator's /metrics, named, typed, labelled (model_name, engine) and bucketed like vLLM V1's server
// metrics (vllm/v1/metrics/loggers.py), so the same dashboards and scrapers read a simulated and a real
// deployment, plus two of its own: emission lateness and cancellations. The simulator is one engine: engine="0".
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

// vLLM's own bucket boundaries (seconds), so server-side panels look the same for both.
const TTFT_BUCKETS = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640,
  2560,
];
const ITL_BUCKETS = [
  0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80,
];
const E2E_BUCKETS = [
  0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680,
];
/** vLLM's request_latency_buckets, shared by its e2e and queue-time histograms. */
const QUEUE_BUCKETS = E2E_BUCKETS;
const LATENESS_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1];

type VllmLabel = 'model_name' | 'engine';
export type VllmLabels = Record<VllmLabel, string>;

/**
 * vLLM's speculative-decoding counters (vllm/v1/spec_decode/metrics.py), exported only when speculative decoding
 * is on, as vLLM does: per engine, drafts (one per sequence per step that verified drafts), draft tokens proposed,
 * draft tokens accepted, and accepted tokens by draft position (position i counts the steps that accepted more
 * than i drafts).
 */
interface SpecDecodeCounters {
  readonly labels: VllmLabels;
  readonly drafts: Counter<VllmLabel>;
  readonly draftTokens: Counter<VllmLabel>;
  readonly acceptedTokens: Counter<VllmLabel>;
  readonly acceptedPerPosition: Counter<VllmLabel | 'position'>;
}

export class SimMetrics {
  readonly registry = new Registry();
  readonly ttft: Histogram<VllmLabel>;
  readonly itl: Histogram<VllmLabel>;
  readonly e2e: Histogram<VllmLabel>;
  readonly queueTime: Histogram<VllmLabel>;
  readonly running: Gauge<VllmLabel>;
  readonly waiting: Gauge<VllmLabel>;
  /** vllm:kv_cache_usage_perc and, under its name before 0.9, vllm:gpu_cache_usage_perc. */
  readonly kvUsage: readonly Gauge<VllmLabel>[];
  private kvUsageSource: { read: () => number; labels: VllmLabels } | undefined;
  readonly preemptions: Counter<VllmLabel>;
  /** Current and pre-0.9 names of each, counted in tokens like vLLM's. */
  readonly prefixQueries: readonly Counter<VllmLabel>[];
  readonly prefixHits: readonly Counter<VllmLabel>[];
  readonly promptTokens: Counter<VllmLabel>;
  readonly generationTokens: Counter<VllmLabel>;
  readonly finished: Counter<VllmLabel | 'finished_reason'>;
  readonly lateness: Histogram;
  readonly cancelled: Counter;
  private specDecode: SpecDecodeCounters | undefined;

  constructor() {
    const registers = [this.registry];
    const labelNames = ['model_name', 'engine'] as const;
    const histogram = (name: string, help: string, buckets: number[]) =>
      new Histogram({ name, help, labelNames, buckets, registers });
    const gauge = (name: string, help: string) => new Gauge({ name, help, labelNames, registers });
    const counter = (name: string, help: string) => new Counter({ name, help, labelNames, registers });
    this.ttft = histogram(
      'vllm:time_to_first_token_seconds',
      'Histogram of time to first token in seconds.',
      TTFT_BUCKETS,
    );
    this.itl = histogram(
      'vllm:inter_token_latency_seconds',
      'Histogram of inter-token latency in seconds.',
      ITL_BUCKETS,
    );
    this.e2e = histogram(
      'vllm:e2e_request_latency_seconds',
      'Histogram of e2e request latency in seconds.',
      E2E_BUCKETS,
    );
    this.queueTime = histogram(
      'vllm:request_queue_time_seconds',
      'Histogram of time spent in WAITING phase for request.',
      QUEUE_BUCKETS,
    );
    this.running = gauge('vllm:num_requests_running', 'Number of requests in model execution batches.');
    this.waiting = gauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.');
    // Usage changes with every block a sequence takes; reading it when scraped costs nothing per token.
    const metrics = this;
    const usageGauge = (name: string, help: string) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        collect() {
          const source = metrics.kvUsageSource;
          if (source) this.set(source.labels, source.read());
        },
      });
    this.kvUsage = [
      usageGauge('vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.'),
      usageGauge(
        'vllm:gpu_cache_usage_perc',
        'GPU KV-cache usage. 1 means 100 percent usage. DEPRECATED: Use vllm:kv_cache_usage_perc instead.',
      ),
    ];
    this.preemptions = counter(
      'vllm:num_preemptions_total',
      'Cumulative number of preemption from the engine.',
    );
    this.prefixQueries = [
      counter(
        'vllm:prefix_cache_queries_total',
        'Prefix cache queries, in terms of number of queried tokens.',
      ),
      counter(
        'vllm:gpu_prefix_cache_queries_total',
        'GPU prefix cache queries, in terms of number of queried tokens. DEPRECATED: Use vllm:prefix_cache_queries instead.',
      ),
    ];
    this.prefixHits = [
      counter('vllm:prefix_cache_hits_total', 'Prefix cache hits, in terms of number of cached tokens.'),
      counter(
        'vllm:gpu_prefix_cache_hits_total',
        'GPU prefix cache hits, in terms of number of cached tokens. DEPRECATED: Use vllm:prefix_cache_hits instead.',
      ),
    ];
    this.promptTokens = counter('vllm:prompt_tokens_total', 'Number of prefill tokens processed.');
    this.generationTokens = counter('vllm:generation_tokens_total', 'Number of generation tokens processed.');
    this.finished = new Counter({
      name: 'vllm:request_success_total',
      help: 'Count of finished requests by finish reason (abort = client went away).',
      labelNames: ['model_name', 'engine', 'finished_reason'],
      registers,
    });
    this.lateness = new Histogram({
      name: 'tokenmeter_sim_emission_lateness_seconds',
      help: 'How late the simulator wrote each chunk compared to its timing model.',
      buckets: LATENESS_BUCKETS,
      registers,
    });
    this.cancelled = new Counter({
      name: 'tokenmeter_sim_cancelled_requests_total',
      help: 'Requests whose client disconnected before the answer was complete.',
      registers,
    });
  }

  /** Where the KV usage gauges read their value at each scrape. */
  readKvUsageFrom(read: () => number, labels: VllmLabels): void {
    this.kvUsageSource = { read, labels };
  }

  /**
   * Turns on the speculative-decoding counters, every series at 0 (positions 0 to N - 1 included), so a scrape
   * before the first draft already finds them, as vLLM's page does from its start.
   */
  enableSpecDecode(numSpeculativeTokens: number, labels: VllmLabels): void {
    const registers = [this.registry];
    const labelNames = ['model_name', 'engine'] as const;
    const counter = (name: string, help: string) => new Counter({ name, help, labelNames, registers });
    const counters: SpecDecodeCounters = {
      labels,
      drafts: counter('vllm:spec_decode_num_drafts_total', 'Number of spec decoding drafts.'),
      draftTokens: counter('vllm:spec_decode_num_draft_tokens_total', 'Number of draft tokens.'),
      acceptedTokens: counter('vllm:spec_decode_num_accepted_tokens_total', 'Number of accepted tokens.'),
      acceptedPerPosition: new Counter({
        name: 'vllm:spec_decode_num_accepted_tokens_per_pos_total',
        help: 'Accepted tokens per draft position.',
        labelNames: ['model_name', 'engine', 'position'],
        registers,
      }),
    };
    for (const c of [counters.drafts, counters.draftTokens, counters.acceptedTokens]) c.inc(labels, 0);
    for (let position = 0; position < numSpeculativeTokens; position++)
      counters.acceptedPerPosition.inc({ ...labels, position: String(position) }, 0);
    this.specDecode = counters;
  }

  /** One sequence's verification step: `draftTokens` proposed, the first `acceptedTokens` of them kept. */
  observeDraft(draftTokens: number, acceptedTokens: number): void {
    const counters = this.specDecode;
    if (counters === undefined) return;
    const { labels } = counters;
    counters.drafts.inc(labels);
    counters.draftTokens.inc(labels, draftTokens);
    counters.acceptedTokens.inc(labels, acceptedTokens);
    for (let position = 0; position < acceptedTokens; position++)
      counters.acceptedPerPosition.inc({ ...labels, position: String(position) });
  }

  /** The engine's gauges and counters, set at once (they are engine-wide, labelled with the first served name). */
  static engineLabels(model: string): VllmLabels {
    return { model_name: model, engine: '0' };
  }
}
