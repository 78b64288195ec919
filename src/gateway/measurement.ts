// Per-request measurement state: one object per request (fixed shape, created when the request arrives, kept on
// the request), filled as the request runs and turned into its record exactly once, when the response closes.
// Timestamps are `performance.now()` values (monotonic, sub-millisecond); the record holds milliseconds since
// the request was received, rounded to the microsecond.
import { deriveLatencies } from '../measure/derive-latencies.js';
import type { MeteredHandler } from '../measure/metered-handler.js';
import type { StreamTiming } from '../measure/stream-timing.js';
import type { JsonAnswerFacts } from '../protocols/index.js';
import type { Outcome, RequestRecord } from './record.js';
import type { RecordedBody } from './recorded-body.js';

export function round3(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function since(start: number, at: number | undefined): number | null {
  return at === undefined || Number.isNaN(at) ? null : round3(at - start);
}

function maybe(value: number | undefined): number | null {
  return value === undefined ? null : round3(value);
}

function max(a: number, b: number): number {
  return Math.max(a, b);
}

export class RequestMeasurement {
  readonly startedAt = new Date();
  method = 'GET';
  upstream: string | null = null;
  modelAsked: string | null = null;
  modelSent: string | null = null;
  pathAsked = '';
  pathSent: string | null = null;
  pathFixes: readonly string[] = [];
  stream = false;
  /** `/healthz`, `/readyz`, `/metrics`: measured for in-flight only, never recorded. */
  ownEndpoint = false;
  status = 0;
  outcome: Outcome | null = null;
  /** Handed to the HTTP client (after body read, auth, routing, body rewrite); NaN if it never was. */
  upstreamRequestAt = Number.NaN;
  endAt = Number.NaN;
  usageInjected = false;
  /** Set only with records.bodies. */
  body: RecordedBody | null = null;
  /** The upstream exchange: its wire stamps and, for a timed stream, its meter. Set once dispatched. */
  exchange: MeteredHandler | null = null;
  json: JsonAnswerFacts | null = null;
  error: string | null = null;
  hint: string | null = null;
  /** Fires timeouts.totalMs after dispatch; cleared when the response closes. */
  totalTimer: NodeJS.Timeout | null = null;
  #figures: StreamTiming | undefined;

  constructor(
    readonly requestId: string,
    readonly receivedAt: number,
  ) {}

  /**
   * Time spent in the gateway rather than waiting on the upstream: from arrival until the request is handed to
   * the HTTP client (body read, auth, routing, body rewrite), plus the time each response chunk spends between
   * arriving from the upstream and being handed to the client's socket. For requests that never reach an
   * upstream it is the whole handling time.
   */
  overheadMs(): number {
    if (Number.isNaN(this.upstreamRequestAt)) return this.endAt - this.receivedAt;
    return this.upstreamRequestAt - this.receivedAt + (this.exchange?.sinkMs ?? 0);
  }

  /**
   * The streamed response's figures, computed once: call only after the meter has ended (the exchange settled
   * or the response closed), when they no longer change. Undefined for responses that were not metered.
   */
  figures(): StreamTiming | undefined {
    if (this.#figures === undefined) this.#figures = this.exchange?.meter?.result();
    return this.#figures;
  }

  toRecord(recordGaps: boolean): RequestRecord {
    const t0 = this.receivedAt;
    const exchange = this.exchange;
    const timing = this.figures();
    const latencies = timing === undefined ? undefined : deriveLatencies(timing, t0);
    const chunks = timing?.contentEvents ?? 0;
    const json = this.json;
    const outputTokens =
      timing !== undefined && (chunks > 0 || timing.usageOutputTokens !== undefined)
        ? timing.outputTokens
        : (json?.completionTokens ?? null);
    const detail = timing?.chunkDetail;
    return {
      requestId: this.requestId,
      startedAt: this.startedAt.toISOString(),
      receivedAtMonotonicMs: round3(t0),
      method: this.method,
      upstream: this.upstream,
      modelAsked: this.modelAsked,
      modelSent: this.modelSent,
      pathAsked: this.pathAsked,
      pathSent: this.pathSent,
      pathFixes: this.pathFixes,
      stream: this.stream,
      status: this.status,
      outcome: this.outcome ?? 'ok',
      upstreamRequestMs: since(t0, this.upstreamRequestAt),
      upstreamSocketWriteMs: since(t0, exchange?.requestStartAt),
      ttfbMs: since(t0, exchange?.headersAt),
      ttftMs: maybe(latencies?.ttftMs),
      lastTokenMs: maybe(latencies?.e2elMs),
      e2eMs: round3(this.endAt - t0),
      tpotMs: maybe(latencies?.tpotMs),
      gatewayOverheadMs: round3(this.overheadMs()),
      promptTokens: timing?.promptTokens ?? json?.promptTokens ?? null,
      completionTokens: outputTokens,
      completionTokensSource:
        timing !== undefined && outputTokens !== null ? timing.outputTokensSource : (json?.source ?? null),
      contentChunks: chunks,
      meanTokensPerChunk: chunks > 0 && outputTokens !== null ? round3(outputTokens / chunks) : null,
      maxTokensPerChunk: detail === undefined || chunks === 0 ? null : detail.estimatedTokens.reduce(max, 0),
      finishReason: timing?.finishReason ?? json?.finishReason ?? null,
      sseOverflow: timing?.overflowed ?? false,
      usageInjected: this.usageInjected,
      ...(recordGaps && latencies?.itlSamplesMs !== undefined
        ? { gapsMs: latencies.itlSamplesMs.map(round3) }
        : {}),
      ...(this.body === null
        ? {}
        : { requestBody: this.body.text, requestBodyTruncated: this.body.truncated }),
      error: this.error,
      hint: this.hint,
    };
  }
}
