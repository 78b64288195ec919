// Per-request measurement state: one object per request (fixed shape, created when the request arrives, kept on
// the request), filled as the request runs and turned into its record exactly once, when the response closes.
// Timestamps are `performance.now()` values (monotonic, sub-millisecond); the record holds milliseconds since
// the request was received, rounded to the microsecond.
import { deriveLatencies } from '../measure/derive-latencies.js';
import type { StreamMeter } from '../measure/stream-meter.js';
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
  upstreamRequestAt = Number.NaN;
  upstreamSocketWriteAt = Number.NaN;
  headersAt = Number.NaN;
  endAt = Number.NaN;
  /** Time response chunks spent inside the gateway, from arrival to handed to the client socket, summed. */
  forwardingMs = 0;
  usageInjected = false;
  /** Set only with records.bodies. */
  body: RecordedBody | null = null;
  meter: StreamMeter | null = null;
  json: JsonAnswerFacts | null = null;
  error: string | null = null;
  hint: string | null = null;
  /** Aborts the upstream request (client left, total timeout); set once the request is dispatched. */
  abortController: AbortController | null = null;
  /** Fires timeouts.totalMs after dispatch; cleared when the response closes. */
  totalTimer: NodeJS.Timeout | null = null;

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
    return this.upstreamRequestAt - this.receivedAt + this.forwardingMs;
  }

  toRecord(recordGaps: boolean): RequestRecord {
    const t0 = this.receivedAt;
    const timing = this.meter?.result();
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
      upstreamSocketWriteMs: since(t0, this.upstreamSocketWriteAt),
      ttfbMs: since(t0, this.headersAt),
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
