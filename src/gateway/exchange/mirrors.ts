// The gateway's mirror copies: when a route has a mirror, a sampled share of its requests is sent a second time,
// to the mirror's upstream, after the primary has been dispatched. The copy is timed by the same MeteredHandler
// and settled by the same rule as the primary (settleExchange), its bytes are discarded (MirrorSink), and it
// becomes a record of its own (role `mirror`, the primary's id as pairId) through the gateway's record sinks.
// Nothing of the copy reaches the client: it is never awaited, its failures are only recorded, and the client
// leaving does not stop it. Its clock starts where the primary's does (the client's request arriving), so the
// two records' TTFT and E2E compare the upstreams on the same request at the same moment.
//
// A copy slower than its primary runs to its end; `maxConcurrent` copies per route bound how many may pile up,
// and a request beyond the bound is not copied (counted as `busy`). On close the gateway waits for the copies in
// flight up to shutdownGraceMs, then cuts them; a cut copy is recorded as truncated, with the reason.

import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import type { ExchangeSink } from '../../measure/metered-handler.js';
import { newSpan } from '../../shared/trace-context.js';
import type { GatewayConfig, ResolvedUpstream } from '../config/config-resolve.js';
import { RequestMeasurement } from '../records/measurement.js';
import type { RecordSink } from '../records/record.js';
import { upstreamFailure } from '../request-path/errors.js';
import type { RouteMirror } from '../request-path/model-routes.js';
import type { BodyObject } from '../request-path/request-body.js';
import { type GatewayState, RECORDS_SETTLE_MS } from '../run-state.js';
import { type ClientRequest, finishExchange, startExchange } from './exchange.js';
import type { KeyScrubber } from './key-scrubber.js';

/** Why a sampled request was not copied: tokenmeter_mirror_skipped_total's `reason`. */
export const MIRROR_SKIP_REASONS = ['busy', 'side_effects', 'shutting_down'] as const;
export type MirrorSkipReason = (typeof MIRROR_SKIP_REASONS)[number];

/** What the proxy knows of a request once it dispatched the primary: enough to send the copy. */
export interface MirroredRequest {
  readonly primary: RequestMeasurement;
  readonly request: ClientRequest;
}

export interface MirrorsOptions {
  readonly config: GatewayConfig;
  readonly dispatchers: ReadonlyMap<ResolvedUpstream, Dispatcher>;
  /** Counts a sampled request that was not copied (tokenmeter_mirror_skipped_total). */
  readonly skipped: (reason: MirrorSkipReason) => void;
  readonly scrubber: KeyScrubber;
  readonly state: GatewayState;
  /** The gateway's record sinks: a copy's record goes where every record goes. */
  readonly sinks: readonly RecordSink[];
}

const CLOSED = 'cut by the gateway: it closed while the mirror copy was still running (shutdownGraceMs)';

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
  consider(mirror: RouteMirror, copy: MirroredRequest): void {
    if (mirror.fraction < 1 && Math.random() >= mirror.fraction) return;
    const { skipped, state } = this.#options;
    const { request } = copy;
    if (
      !mirror.includeSideEffects &&
      mayHaveSideEffects(request.method, request.endpoint, request.body?.object)
    ) {
      skipped('side_effects');
      return;
    }
    if (state.shuttingDown) {
      skipped('shutting_down');
      return;
    }
    const running = this.#perRoute.get(mirror) ?? 0;
    if (running >= mirror.maxConcurrent) {
      skipped('busy');
      return;
    }
    this.#perRoute.set(mirror, running + 1);
    this.#send(mirror, copy);
  }

  /** Cuts every copy in flight; each is recorded as truncated with `reason` as its error. */
  cut(reason: string): void {
    for (const m of this.#running) {
      m.conclude('truncated', reason);
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

  #send(mirror: RouteMirror, copy: MirroredRequest): void {
    const { config, dispatchers, scrubber } = this.#options;
    const { primary, request } = copy;
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
    m.modelAsked = primary.modelAsked;
    this.#running.add(m);
    this.#options.state.mirrorsInFlight++;
    startExchange(
      m,
      request,
      {
        upstream,
        dispatcher: dispatchers.get(upstream) as Dispatcher,
        model: mirror.model,
        injectUsage: config.injectUsage,
        keepGaps: config.recordGaps,
        scrubber,
      },
      { sink: new MirrorSink(m, upstream), onSettled: (h) => this.#finish(mirror, m, h.endAt) },
    );
  }

  #finish(mirror: RouteMirror, m: RequestMeasurement, endAt: number): void {
    this.#perRoute.set(mirror, (this.#perRoute.get(mirror) ?? 1) - 1);
    this.#running.delete(m);
    this.#options.state.mirrorsInFlight--;
    finishExchange(m, endAt, this.#options.config.recordGaps, this.#options.sinks);
    if (this.#running.size === 0) for (const resolve of this.#idle.splice(0)) resolve();
  }
}

// Where a mirror copy's answer goes: nowhere. Its bytes are metered by the MeteredHandler and dropped here; a
// failure before the answer started is noted on the copy's measurement with the outcome and message the client
// would have got from the same failure on a primary (errors.ts), so the two sides' records read alike.
export class MirrorSink implements ExchangeSink {
  readonly #m: RequestMeasurement;
  readonly #upstream: ResolvedUpstream;

  constructor(m: RequestMeasurement, upstream: ResolvedUpstream) {
    this.#m = m;
    this.#upstream = upstream;
  }

  head(_status: number, _headers: IncomingHttpHeaders, _metered: boolean): void {}

  write(_bytes: Buffer): boolean {
    return true;
  }

  onDrain(_resume: () => void): void {}

  end(): void {}

  fail(error: Error, responseStarted: boolean): void {
    // A cut answer is judged by settleExchange, like a primary's; an outcome already set (a cut by the gateway)
    // stands.
    if (responseStarted || this.#m.outcome !== null) return;
    const failure = upstreamFailure(this.#upstream, error);
    this.#m.conclude(failure.outcome, failure.message);
  }
}

// Which requests a route's mirror may copy without being told to. A copy is only harmless when sending the same
// request twice changes nothing but the bill: a POST that asks for a generation or an embedding and nothing else.
// A request with tools is not, although the model only proposes calls: hosted APIs run server-side tools
// themselves (web search, code execution, file search), and a copy would run them a second time. An OpenAI
// Responses request is stored by the API unless it says `"store": false`, so a copy would leave a second stored
// response (and a conversation a later `previous_response_id` could continue). Any other endpoint or method may
// create, change or delete something upstream. Such requests are copied only when the route says
// `includeSideEffects: true`.
/** Endpoints whose POST only answers (with no tools offered): copying it runs nothing twice. */
const ANSWER_ONLY_ENDPOINTS: ReadonlySet<string> = new Set([
  'chat/completions',
  'completions',
  'messages',
  'embeddings',
]);

/** True when copying this request may do more than cost a second answer (see the header). */
export function mayHaveSideEffects(method: string, endpoint: string, body: BodyObject | undefined): boolean {
  if (method !== 'POST' || body === undefined) return true;
  if (body.offersTools) return true;
  if (endpoint === 'responses') return !body.storeOff;
  return !ANSWER_ONLY_ENDPOINTS.has(endpoint);
}
