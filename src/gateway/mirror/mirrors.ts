// The gateway's mirror copies: when a route has a mirror, a sampled share of its requests is sent a second time,
// to the mirror's upstream, after the primary has been dispatched. The copy is timed by the same MeteredHandler
// and settled by the same rule as the primary (settleExchange), its bytes are discarded (mirror-sink.ts), and it
// becomes a record of its own (role `mirror`, the primary's id as pairId) through the gateway's record sinks.
// Nothing of the copy reaches the client: it is never awaited, its failures are only recorded, and the client
// leaving does not stop it. Its clock starts where the primary's does (the client's request arriving), so the
// two records' TTFT and E2E compare the upstreams on the same request at the same moment.
//
// A copy slower than its primary runs to its end; `maxConcurrent` copies per route bound how many may pile up,
// and a request beyond the bound is not copied (counted as `busy`). On close the gateway waits for the copies in
// flight up to shutdownGraceMs, then cuts them; a cut copy is recorded as truncated, with the reason.
import type { IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { MeteredHandler, UNCONTROLLED } from '../../measure/metered-handler.js';
import { TOTAL_TIMEOUT_CODE } from '../../measure/network-failure.js';
import { type KnownProtocol, upstreamAuthFor } from '../../protocols/index.js';
import { newSpan, traceparentOf } from '../../shared/trace-context.js';
import type { GatewayConfig, ResolvedUpstream } from '../config-resolve.js';
import type { GatewayState, RecordSink } from '../context.js';
import { settleExchange } from '../exchange-outcome.js';
import type { GatewayMetrics } from '../gateway-metrics.js';
import { forwardableRequestHeaders } from '../hop-by-hop.js';
import type { KeyScrubber } from '../key-scrubber.js';
import { RequestMeasurement } from '../measurement.js';
import type { RouteMirror } from '../model-routes.js';
import { type ParsedBody, upstreamBody } from '../request-body.js';
import { applyUpstreamAuth } from '../upstream-auth.js';
import { mayHaveSideEffects } from './mirror-eligibility.js';
import { MirrorSink } from './mirror-sink.js';

/** Why a sampled request was not copied: tokenmeter_mirror_skipped_total's `reason`. */
export const MIRROR_SKIP_REASONS = ['busy', 'side_effects', 'shutting_down'] as const;
export type MirrorSkipReason = (typeof MIRROR_SKIP_REASONS)[number];

/** What the proxy knows of a request once it dispatched the primary: enough to send the copy. */
export interface MirroredRequest {
  readonly primary: RequestMeasurement;
  readonly method: string;
  /** The canonical endpoint (`chat/completions`), and its protocol when timed. */
  readonly endpoint: string;
  readonly protocol: KnownProtocol | undefined;
  readonly body: ParsedBody | undefined;
  /** The client's query string with its `?`, or ''. */
  readonly query: string;
  readonly clientHeaders: IncomingHttpHeaders;
}

export interface MirrorsOptions {
  readonly config: GatewayConfig;
  readonly dispatchers: ReadonlyMap<ResolvedUpstream, Dispatcher>;
  readonly metrics: GatewayMetrics;
  readonly scrubber: KeyScrubber;
  readonly state: GatewayState;
  /** The gateway's record sinks: a copy's record goes where every record goes. */
  readonly sinks: readonly RecordSink[];
}

/** Non-streamed bodies of a copy are kept for usage and error text up to this size, as the primary's are. */
const MAX_KEPT_BODY_BYTES = 4 * 1024 * 1024;
/** Past the grace period, how long closing waits for cut copies to be recorded (one event-loop turn is enough). */
const RECORDS_SETTLE_MS = 1000;
const CLOSED = 'cut by the gateway: it closed while the mirror copy was still running (shutdownGraceMs)';

function totalTimeout(): Error {
  return Object.assign(new Error('total timeout'), { code: TOTAL_TIMEOUT_CODE });
}

function cutBy(reason: string): Error {
  return Object.assign(new Error(reason), { code: 'TOKENMETER_MIRROR_CUT' });
}

export class Mirrors {
  readonly #options: MirrorsOptions;
  /** Copies in flight, per route mirror (for its bound) and all together (to cut them). */
  readonly #perRoute = new Map<RouteMirror, number>();
  readonly #running = new Set<RequestMeasurement>();
  readonly #idle: (() => void)[] = [];

  constructor(options: MirrorsOptions) {
    this.#options = options;
  }

  /** Called by the proxy right after the primary was dispatched; returns at once, whatever happens to the copy. */
  consider(mirror: RouteMirror, request: MirroredRequest): void {
    if (mirror.fraction < 1 && Math.random() >= mirror.fraction) return;
    const { metrics, state } = this.#options;
    if (
      !mirror.includeSideEffects &&
      mayHaveSideEffects(request.method, request.endpoint, request.body?.json)
    ) {
      metrics.mirrorSkipped('side_effects');
      return;
    }
    if (state.shuttingDown) {
      metrics.mirrorSkipped('shutting_down');
      return;
    }
    const running = this.#perRoute.get(mirror) ?? 0;
    if (running >= mirror.maxConcurrent) {
      metrics.mirrorSkipped('busy');
      return;
    }
    this.#perRoute.set(mirror, running + 1);
    this.#send(mirror, request);
  }

  /** Cuts every copy in flight; each is recorded as truncated with `reason` as its error. */
  cut(reason: string): void {
    for (const m of this.#running) {
      if (m.outcome === null) {
        m.outcome = 'truncated';
        m.error = reason;
      }
      m.exchange?.abort(cutBy(reason));
    }
  }

  /** Waits for the copies in flight, up to `graceMs`; then cuts the rest and waits for their records. */
  async close(graceMs: number): Promise<void> {
    if (this.#running.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.#whenIdle(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (this.#running.size === 0) return;
    this.cut(CLOSED);
    await Promise.race([
      this.#whenIdle(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, RECORDS_SETTLE_MS);
      }),
    ]);
    clearTimeout(timer);
  }

  #whenIdle(): Promise<void> {
    if (this.#running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #send(mirror: RouteMirror, request: MirroredRequest): void {
    const { config, dispatchers, scrubber } = this.#options;
    const { primary, protocol, body } = request;
    const upstream = mirror.upstream;
    // The copy's span is a child of the gateway's span for the primary: one trace shows both exchanges.
    const span = newSpan({
      traceId: primary.trace.traceId,
      parentId: primary.trace.spanId,
      flags: primary.trace.flags,
    });
    const m = new RequestMeasurement(
      `${primary.requestId}.mirror`,
      primary.receivedAt,
      span,
      primary.traceState,
    );
    primary.pairId = primary.requestId;
    m.role = 'mirror';
    m.pairId = primary.requestId;
    m.method = request.method;
    m.pathAsked = primary.pathAsked;
    m.pathFixes = primary.pathFixes;
    m.stream = primary.stream;
    m.upstream = upstream.name;
    m.modelAsked = primary.modelAsked;
    m.modelSent = mirror.model;
    m.price = upstream.prices.get(mirror.model);
    const prepared =
      body === undefined
        ? undefined
        : upstreamBody(body, mirror.model, config.injectUsage && protocol?.usageOnRequest === true);
    m.usageInjected = prepared?.usageInjected ?? false;
    const pathSent = `${upstream.base.apiPrefix}/${request.endpoint}`;
    m.pathSent = pathSent;
    // The client's headers less its credentials (hop-by-hop.ts), then the mirror upstream's own headers and key.
    const headers = forwardableRequestHeaders(request.clientHeaders);
    for (const [name, value] of Object.entries(upstream.headers)) headers[name] = value;
    applyUpstreamAuth(headers, upstreamAuthFor(request.endpoint), upstream.key);
    headers['x-request-id'] = m.requestId;
    headers['traceparent'] = traceparentOf(span);
    if (m.traceState !== null) headers['tracestate'] = m.traceState;
    const idleMs = upstream.timeouts.idleMs;
    const hintContext = {
      path: pathSent,
      model: mirror.model,
      ...(upstream.keySource === null ? {} : { keySource: upstream.keySource }),
    };
    const exchange = new MeteredHandler({
      classifier: protocol?.classifier,
      meterEveryBody: m.stream,
      sink: new MirrorSink(m, upstream),
      keepChunkDetail: true,
      keepText: false,
      removeUsageOnlyEvents: m.usageInjected,
      keepBodyBytes: (status, streamed) =>
        !streamed && (protocol !== undefined || status >= 400) ? MAX_KEPT_BODY_BYTES : 0,
      onSettled: (h) => {
        settleExchange(m, h, { protocol, idleMs, hintContext, scrubber });
        this.#finish(mirror, m, h);
      },
    });
    m.exchange = exchange;
    m.totalTimer = setTimeout(() => exchange.abort(totalTimeout()), upstream.timeouts.totalMs);
    this.#running.add(m);
    this.#options.state.mirrorsInFlight++;
    const dispatcher = dispatchers.get(upstream) as Dispatcher;
    m.upstreamRequestAt = performance.now();
    try {
      dispatcher.dispatch(
        {
          origin: upstream.base.origin,
          path: `${pathSent}${request.query}`,
          method: request.method as Dispatcher.HttpMethod,
          headers,
          body: prepared?.bytes ?? null,
        },
        exchange,
      );
    } catch (error) {
      // This runs inside the client's request handler: a copy that cannot even start is the copy's failure,
      // recorded as such, never an error thrown at the client.
      exchange.onResponseError(UNCONTROLLED, error instanceof Error ? error : new Error(String(error)));
    }
  }

  #finish(mirror: RouteMirror, m: RequestMeasurement, h: MeteredHandler): void {
    m.endAt = h.endAt;
    if (m.totalTimer !== null) clearTimeout(m.totalTimer);
    this.#perRoute.set(mirror, (this.#perRoute.get(mirror) ?? 1) - 1);
    this.#running.delete(m);
    this.#options.state.mirrorsInFlight--;
    const record = m.toRecord(this.#options.config.recordGaps);
    for (const sink of this.#options.sinks) sink(record, m);
    if (this.#running.size === 0) for (const resolve of this.#idle.splice(0)) resolve();
  }
}
