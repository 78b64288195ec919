// Per-request measurement state: one object per request (fixed shape, created when the request arrives, kept on
// the request), filled as the request runs and turned into its record exactly once, when the response closes.
// Timestamps are `performance.now()` values (monotonic, sub-millisecond); the record holds milliseconds since
// the request was received, rounded to the microsecond. What the client chose (its path, its model name) and
// its body are kept in the record only up to their bounds (boundedClientText, recordedBody, at the end).
import type { JsonAnswerFacts } from '../../measure/answer-facts.js';
import type { MeteredHandler } from '../../measure/metered-handler.js';
import type { Outcome } from '../../measure/outcome.js';
import { type StreamFigures, streamFigures } from '../../measure/stream-figures.js';
import type { StreamTiming } from '../../measure/stream-timing.js';
import type { ProtocolName } from '../../protocols/index.js';
import type { TraceSpan } from '../../shared/trace-context.js';
import { type ModelPrice, requestCost } from '../config/model-prices.js';
import type { PromptPrefix } from '../sessions/prompt-prefixes.js';
import type { SessionTurn } from '../sessions/sessions.js';
import type { RequestRecord, RequestRole } from './record.js';
import { gapCountsOf } from './record.js';

export function round3(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function since(start: number, at: number | undefined): number | null {
  return at === undefined || Number.isNaN(at) ? null : round3(at - start);
}

function maybe(value: number | undefined): number | null {
  return value === undefined ? null : round3(value);
}

export class RequestMeasurement {
  readonly startedAt = new Date();
  role: RequestRole = 'primary';
  /** Set on both sides when a mirror copy of the request is sent. */
  pairId: string | null = null;
  method = 'GET';
  upstream: string | null = null;
  modelAsked: string | null = null;
  modelSent: string | null = null;
  /** The price of the model the upstream was sent, set where the upstream is chosen; none when unpriced. */
  price: ModelPrice | undefined = undefined;
  pathAsked = '';
  pathSent: string | null = null;
  pathFixes: readonly string[] = [];
  /** The protocol whose answer was timed, as the route found it; null for an untimed endpoint. */
  protocol: ProtocolName | null = null;
  stream = false;
  status = 0;
  #outcome: Outcome | null = null;
  upstreamRequestAt = Number.NaN;
  endAt = Number.NaN;
  usageInjected = false;
  /** Set only with records.bodies. */
  body: RecordedBody | null = null;
  /** The request's place in its session (sessions.ts); null without one. */
  session: SessionTurn | null = null;
  /** Tool results the request sent (conversation.ts); null when not counted. */
  toolResults: number | null = null;
  /** The prompt's boundaries for traces (prompt-prefixes.ts); null without a conversation. */
  promptPrefixes: readonly PromptPrefix[] | null = null;
  /** The upstream exchange: its wire stamps and, for a timed stream, its meter. Set once dispatched. */
  exchange: MeteredHandler | null = null;
  json: JsonAnswerFacts | null = null;
  #error: string | null = null;
  #hint: string | null = null;
  /** Fires timeouts.totalMs after dispatch; cleared when the response closes. */
  totalTimer: NodeJS.Timeout | null = null;
  // The meter's result and the figures derived from it, computed once (null: not yet).
  #timing: StreamTiming | undefined | null = null;
  #figures: StreamFigures | undefined | null = null;

  constructor(
    readonly requestId: string,
    readonly receivedAt: number,
    /** The gateway's span: continuing the client's trace, or starting one (src/shared/trace-context.ts). */
    readonly trace: TraceSpan,
    /** The client's tracestate, passed upstream unchanged; null when absent or its traceparent was invalid. */
    readonly traceState: string | null,
  ) {}

  /** How the exchange ended; null until concluded. */
  get outcome(): Outcome | null {
    return this.#outcome;
  }

  get error(): string | null {
    return this.#error;
  }

  get hint(): string | null {
    return this.#hint;
  }

  /**
   * The one writer of the outcome (with its error text and hint): the first conclusion stands, later ones are
   * ignored (a client that left stays a client abort whatever the upstream did after). Returns whether this call
   * concluded it.
   */
  conclude(outcome: Outcome, error: string | null = null, hint: string | null = null): boolean {
    if (this.#outcome !== null) return false;
    this.#outcome = outcome;
    this.#error = error;
    this.#hint = hint;
    return true;
  }

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

  /** The answer's own id (Responses), streamed or not; undefined when it had none. */
  responseId(): string | undefined {
    return this.timing()?.responseId ?? this.json?.responseId ?? undefined;
  }

  /** The meter's result (undefined without a meter), computed once: call it only after the meter has ended. */
  timing(): StreamTiming | undefined {
    if (this.#timing === null) this.#timing = this.exchange?.meter?.result();
    return this.#timing;
  }

  /** The stream's figures (undefined without a meter), computed once from timing(). */
  figures(): StreamFigures | undefined {
    if (this.#figures === null) {
      const timing = this.timing();
      this.#figures = timing === undefined ? undefined : streamFigures(timing, this.receivedAt);
    }
    return this.#figures;
  }

  /** The finished request's record; call once, after the outcome was concluded (exchange.ts's finisher). */
  toRecord(recordGaps: boolean): RequestRecord {
    // Every path concludes the outcome; a request that reaches here without one is a gateway bug, recorded as a
    // refusal that says so rather than passed off as a success.
    if (this.#outcome === null) {
      this.conclude('rejected', 'the gateway finished this request without concluding its outcome (a bug)');
    }
    const t0 = this.receivedAt;
    const timing = this.timing();
    const figures = this.figures();
    const chunks = figures?.contentChunks ?? 0;
    const json = this.json;
    const outputTokens =
      figures !== undefined && timing !== undefined && (chunks > 0 || timing.usageOutputTokens !== undefined)
        ? figures.outputTokens
        : (json?.outputTokens ?? null);
    const promptTokens = figures?.promptTokens ?? json?.promptTokens ?? null;
    const cachedPromptTokens = figures?.cachedPromptTokens ?? json?.cachedPromptTokens ?? null;
    const implausibleUsage = timing?.implausibleUsage ?? json?.implausibleUsage;
    return {
      requestId: this.requestId,
      role: this.role,
      pairId: this.pairId,
      traceId: this.trace.traceId,
      spanId: this.trace.spanId,
      parentSpanId: this.trace.parentSpanId,
      traceFlags: this.trace.flags,
      startedAt: this.startedAt.toISOString(),
      receivedAtMonotonicMs: round3(t0),
      method: this.method,
      upstream: this.upstream,
      // Client-chosen text, cut to a bound whatever the request's fate (boundedClientText, below).
      modelAsked: this.modelAsked === null ? null : boundedClientText(this.modelAsked),
      modelSent: this.modelSent,
      pathAsked: boundedClientText(this.pathAsked),
      pathSent: this.pathSent,
      pathFixes: this.pathFixes,
      protocol: this.protocol,
      stream: this.stream,
      status: this.status,
      outcome: this.#outcome as Outcome,
      upstreamRequestMs: since(t0, this.upstreamRequestAt),
      upstreamSocketWriteMs: since(t0, this.exchange?.requestStartAt),
      ttfbMs: since(t0, this.exchange?.headersAt),
      ttftMs: maybe(figures?.ttftMs),
      ttfoMs: maybe(figures?.ttfoMs),
      lastTokenMs: maybe(figures?.lastTokenMs),
      e2eMs: round3(this.endAt - t0),
      tpotMs: maybe(figures?.tpotMs),
      gatewayOverheadMs: round3(this.overheadMs()),
      promptTokens,
      cachedPromptTokens,
      outputTokens,
      outputTokensSource:
        figures !== undefined && outputTokens !== null ? sourceOf(figures) : (json?.source ?? null),
      reasoningTokens: figures?.reasoningTokens ?? json?.reasoningTokens ?? null,
      ...requestCost(this.price, { promptTokens, cachedPromptTokens, outputTokens }),
      contentChunks: chunks,
      meanTokensPerChunk: chunks > 0 && outputTokens !== null ? round3(outputTokens / chunks) : null,
      maxTokensPerChunk: figures?.maxTokensPerChunk ?? null,
      finishReason: figures?.finishReason ?? json?.finishReason ?? null,
      sseOverflow: figures?.overflowed ?? false,
      usageInjected: this.usageInjected,
      gapCounts: gapCountsOf(timing?.contentGaps),
      sessionId: this.session?.sessionId ?? null,
      sessionSource: this.session?.source ?? null,
      turn: this.session?.turn ?? null,
      waitBeforeMs: maybe(this.session?.waitBeforeMs ?? undefined),
      toolCalls: timing?.toolCalls ?? json?.toolCalls ?? null,
      toolResults: this.toolResults,
      promptPrefixes: this.promptPrefixes,
      ...(recordGaps && figures?.itlMs !== undefined ? { itlMs: figures.itlMs.map(round3) } : {}),
      ...(recordGaps && figures?.itlCut === true ? { itlMsCut: true } : {}),
      ...(figures === undefined ? {} : chunkUsageFields(figures, recordGaps)),
      ...(this.body === null
        ? {}
        : { requestBody: this.body.text, requestBodyTruncated: this.body.truncated }),
      error: this.#error,
      ...(implausibleUsage === undefined ? {} : { implausibleUsage }),
      hint: this.#hint,
    };
  }
}

/**
 * A stream whose every content chunk carried a running usage (the client asked for vLLM's continuous_usage_stats):
 * its multi-token chunks and mean per-token gap, and with records.gaps each chunk's tokens beside itlMs.
 */
function chunkUsageFields(
  figures: StreamFigures,
  recordGaps: boolean,
): Pick<RequestRecord, 'multiTokenChunks' | 'perTokenItlMs' | 'chunkTokens'> {
  if (!figures.chunkTokensKnown) return {};
  const mean = figures.perTokenItlMeanMs;
  return {
    multiTokenChunks: figures.multiTokenChunks ?? 0,
    ...(mean === undefined ? {} : { perTokenItlMs: round3(mean) }),
    ...(recordGaps && figures.chunkTokens !== undefined ? { chunkTokens: [...figures.chunkTokens] } : {}),
  };
}

/** The gateway counts with the meter's estimate, never a tokenizer. */
function sourceOf(figures: StreamFigures): 'usage' | 'estimate' {
  return figures.outputTokensSource === 'usage' ? 'usage' : 'estimate';
}

// The request body as a record keeps it (records.bodies, off by default: bodies hold users' prompts). Capped so
// one huge request cannot bloat the records file; the cut is flagged so a replay knows the body is incomplete.
// Only the body is kept: credentials travel in headers, which are never recorded.
export const MAX_RECORDED_BODY_BYTES = 256 * 1024;

export interface RecordedBody {
  readonly text: string;
  readonly truncated: boolean;
}

export function recordedBody(raw: Buffer): RecordedBody {
  const truncated = raw.length > MAX_RECORDED_BODY_BYTES;
  return {
    text: (truncated ? raw.subarray(0, MAX_RECORDED_BODY_BYTES) : raw).toString('utf8'),
    truncated,
  };
}

// Text a client chose (the path it asked for, the model it named) is written into every record and log line, of
// refused requests too: a client without a gateway key could otherwise make each 401 write its whole path (up to
// Node's 16 KiB header bound) twice, and control the gateway's disk use (200 such requests wrote 6.3 MB in 1.9 s).
// Cut to MAX_CLIENT_TEXT_BYTES of UTF-8, with a marker saying how long it was; real paths and model names are far
// shorter, so nothing a working client sends is cut.
/** The most bytes (UTF-8) of one client-chosen text kept in a record or log line. */
export const MAX_CLIENT_TEXT_BYTES = 512;

/** `text` when it fits MAX_CLIENT_TEXT_BYTES, else its first bytes and `...[cut: N bytes]`. */
export function boundedClientText(text: string): string {
  // A UTF-16 unit is at most 3 bytes of UTF-8: short text is never measured.
  if (text.length * 3 <= MAX_CLIENT_TEXT_BYTES) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= MAX_CLIENT_TEXT_BYTES) return text;
  // A character cut in the middle becomes U+FFFD, which is dropped rather than kept as a half.
  const head = bytes
    .subarray(0, MAX_CLIENT_TEXT_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${head}...[cut: ${bytes.length} bytes]`;
}
