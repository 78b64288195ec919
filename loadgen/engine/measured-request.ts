// One request's measurement, shared by every engine: its exchange (the gateway's MeteredHandler, with a sink that
// discards) stamps the response headers and each body chunk and meters the stream, whether undici drives it (the
// open-loop engine dispatches it) or autocannon's events do (the closed-loop engine reports them here); once it
// settles this class turns it into the RequestRecord, by the outcome rule the gateway and the doctor use. Role-only
// deltas never count as the first token. The response head is read for one thing: the tokenmeter gateway's header,
// so a record says whether its answer came through a gateway.

import type { IncomingHttpHeaders } from 'node:http';
import {
  DISCARD,
  type ExchangeSink,
  MeteredHandler,
  UNCONTROLLED,
} from '../../src/measure/metered-handler.js';
import { type ClientOutcome, PLANNED_CANCEL } from '../../src/measure/outcome.js';
import { type StreamFigures, streamFigures } from '../../src/measure/stream-figures.js';
import { streamOutcome } from '../../src/measure/stream-outcome.js';
import type { StreamTiming } from '../../src/measure/stream-timing.js';
import { type ProtocolName, protocolByName } from '../../src/protocols/index.js';
import { GATEWAY_HEADER, STREAM_CUT_COMMENT } from '../../src/shared/package-version.js';
import { type TraceSpan, traceparentOf } from '../../src/shared/trace-context.js';
import type { RequestRecord } from '../record.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';
import { AnswerTooLongError, failureFromError, PlannedCancelError } from './failure-kind.js';

const NO_HEADERS = Object.freeze({});

/** --per-chunk-usage: each chunk's tokens by the running usage, when every content chunk carried one. */
function chunkUsageFields(
  figures: StreamFigures,
): Pick<RequestRecord, 'chunkTokens' | 'multiTokenChunks' | 'perTokenItlMs'> {
  if (!figures.chunkTokensKnown) return {};
  return {
    chunkTokens: [...(figures.chunkTokens ?? [])],
    multiTokenChunks: figures.multiTokenChunks ?? 0,
    ...(figures.perTokenItlMeanMs === undefined ? {} : { perTokenItlMs: figures.perTokenItlMeanMs }),
  };
}

/** The one header the record needs, out of a raw list, without building the whole header object. */
function gatewayHeaderOnly(rawHeaders: readonly string[]): IncomingHttpHeaders {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === GATEWAY_HEADER) return { [GATEWAY_HEADER]: rawHeaders[i + 1] };
  }
  return NO_HEADERS;
}

export interface MeasuredRequestOptions {
  readonly index: number;
  readonly promptTokens: number;
  /** performance.now() of the run's t = 0. */
  readonly runStartMs: number;
  readonly intendedOffsetMs: number;
  readonly protocol: ProtocolName;
  readonly tokenizer: Tokenizer;
  readonly keepText: boolean;
  readonly errorBodyBytes: number;
  /** Longest silence tolerated (the engine's idle timeout), named in the record of a request that hit it. */
  readonly idleTimeoutMs: number;
  /** The request's own span, starting its trace (newSpan()); the gateway and the server continue it. */
  readonly trace: TraceSpan;
  /**
   * --request-cancellation-rate chose it: cancel it this many ms after undici wrote it (headers and body, which is a
   * Buffer, handed to the socket in the same step as onRequestStart), unless it ended before. Only a dispatched
   * exchange starts this clock (the closed loop's autocannon never calls onRequestStart, and refuses the flag).
   */
  readonly cancelAfterMs?: number;
  /**
   * Keep up to this many bytes of a 2xx answer's body (answerBody()), for a caller that reads more than the text:
   * the agent replay carries the answer's tool calls into the next turn. Absent: none kept.
   */
  readonly keepAnswerBytes?: number;
}

export class MeasuredRequest {
  /**
   * The exchange, which stamps and meters the wire: the open-loop engine dispatches it on undici, the closed-loop
   * engine feeds its callbacks from autocannon's events (onHeaders, onBody, complete, fail).
   */
  readonly exchange: MeteredHandler;
  /** Sent with the request, so its server side joins this request's trace with our span as parent. */
  readonly traceparent: string;
  readonly #options: MeasuredRequestOptions;
  #sentAtMs: number | null = null;
  #clientQueueMs = 0;
  /** Set once, when the exchange settled or the request was given up before it was sent. */
  #record: RequestRecord | null = null;
  #onRecord: ((record: RequestRecord) => void) | null = null;
  #gatewayVersion: string | undefined;
  #cancelTimer: NodeJS.Timeout | undefined;
  /** performance.now() when the planned cancellation fired. */
  #cancelledAt: number | undefined;
  /**
   * Drops the bytes, as DISCARD does; notes the gateway's header from the head, and stops reading an answer whose
   * text passed the most a request keeps (undici's read; the closed loop checks stoppedReading itself).
   */
  readonly #sink: ExchangeSink = {
    ...DISCARD,
    head: (_status, headers) => {
      const version = headers[GATEWAY_HEADER];
      if (typeof version === 'string') this.#gatewayVersion = version;
    },
    write: () => {
      if (this.stoppedReading) this.exchange.abort(new AnswerTooLongError());
      return true;
    },
  };

  constructor(options: MeasuredRequestOptions) {
    this.#options = options;
    this.traceparent = traceparentOf(options.trace);
    this.exchange = new MeteredHandler({
      classifier: protocolByName(options.protocol).classifier,
      meterEveryBody: true,
      sink: this.#sink,
      // vLLM's ITL percentiles and --save-detailed's itls need every gap: the first MAX_KEPT_GAPS (100,000) of a
      // stream are kept, and a record whose stream had more says so (itlMsCut).
      keepChunkDetail: true,
      keepText: true,
      removeUsageOnlyEvents: false,
      // The start of the body, kept for failures (the whole of it is not needed, and could be huge).
      keepBodyBytes: (status) =>
        options.keepAnswerBytes !== undefined && status >= 200 && status < 300
          ? Math.max(options.keepAnswerBytes, options.errorBodyBytes)
          : options.errorBodyBytes,
      onSettled: (exchange) => this.#settled(exchange),
      ...(options.cancelAfterMs === undefined
        ? {}
        : { onRequestStart: () => this.#armCancel(options.cancelAfterMs as number) }),
    });
  }

  /**
   * Starts the planned cancellation's delay at the write. A timer can fire a little early by performance.now()
   * (libuv counts whole milliseconds from a cached loop time): it is re-armed for what is left, so no request is
   * cancelled before its delay.
   */
  #armCancel(delayMs: number): void {
    const dueAt = this.exchange.requestStartAt + delayMs;
    const check = (): void => {
      if (this.exchange.settled) return;
      const now = performance.now();
      if (now < dueAt) {
        this.#cancelTimer = setTimeout(check, Math.max(1, dueAt - now));
        return;
      }
      this.#cancelledAt = now;
      const cancel = new PlannedCancelError(delayMs);
      // A stream whose final event arrived is finished, not cancelled (src/measure/stream-outcome.ts).
      if (!this.exchange.endAtFinalEvent(cancel)) this.exchange.abort(cancel);
    };
    this.#cancelTimer = setTimeout(check, delayMs);
  }

  /** The answer's text passed the most a request keeps (kept-text.ts): the rest is not read. */
  get stoppedReading(): boolean {
    return this.exchange.meter?.textCut === true;
  }

  /** The answer's body as received, up to keepAnswerBytes (empty when none was asked for). */
  answerBody(): string {
    return this.#options.keepAnswerBytes === undefined ? '' : this.exchange.keptBody().toString('utf8');
  }

  get finished(): boolean {
    return this.#record !== null;
  }

  get sent(): boolean {
    return this.#sentAtMs !== null;
  }

  /** The request is about to be written; `queuedMs` is how long it waited for a concurrency slot. */
  markSent(atMs: number, queuedMs = 0): void {
    this.#sentAtMs = atMs;
    this.#clientQueueMs = queuedMs;
  }

  /** Calls `listener` with the record once the exchange settles (at once if it already has). */
  whenRecorded(listener: (record: RequestRecord) => void): void {
    if (this.#record !== null) listener(this.#record);
    else this.#onRecord = listener;
  }

  // For clients that are not undici: the closed-loop engine reports autocannon's events here.
  /** `rawHeaders`: name, value, name, value... as autocannon's parser hands them over. */
  onHeaders(status: number, statusText: string, rawHeaders: readonly string[]): void {
    this.exchange.onResponseStart(UNCONTROLLED, status, gatewayHeaderOnly(rawHeaders), statusText);
  }

  onBody(chunk: Buffer): void {
    this.exchange.onResponseData(UNCONTROLLED, chunk);
  }

  /** The response ended normally (the whole body arrived). */
  complete(): RequestRecord {
    this.exchange.onResponseEnd(UNCONTROLLED, NO_HEADERS);
    return this.#record as RequestRecord;
  }

  /** The request failed on the wire (connection, timeout, reset) or was cancelled by us. */
  fail(error: Error): RequestRecord {
    this.exchange.onResponseError(UNCONTROLLED, error);
    return this.#record as RequestRecord;
  }

  /** Cancelled while still waiting for its slot: it never went on the wire. */
  abortUnsent(queuedMs: number): RequestRecord {
    this.#clientQueueMs = queuedMs;
    return this.#finish('client_abort', 'run stopped before this request was sent', null, undefined);
  }

  #settled(exchange: MeteredHandler): void {
    clearTimeout(this.#cancelTimer);
    let record: RequestRecord;
    try {
      const timing = exchange.meter?.result();
      record =
        exchange.error !== null
          ? this.#failed(exchange, exchange.error, timing)
          : this.#ended(exchange, timing as StreamTiming);
    } catch (error) {
      // Called from undici's callbacks, which swallow a throw: a request left without a record would leave its
      // engine waiting, and the run would end without a word or a file (Node's exit 13). It is recorded without
      // figures instead, saying why.
      const failure = failureFromError(error, !Number.isNaN(exchange.headersAt));
      record = this.#finish(failure.outcome, `could not be measured: ${failure.message}`, null, undefined);
    }
    this.#onRecord?.(record);
  }

  // The outcome rule is src/measure/stream-outcome.ts, the gateway's and the doctor's too.
  #ended(exchange: MeteredHandler, timing: StreamTiming): RequestRecord {
    const status = exchange.status;
    const verdict = streamOutcome(status, timing);
    switch (verdict.outcome) {
      case 'http_error':
        return this.#finish(
          verdict.outcome,
          `${status} ${exchange.statusText}`.trim(),
          this.#bodyText(exchange),
          timing,
        );
      case 'upstream_error_body':
        return this.#finish(
          verdict.outcome,
          verdict.reason,
          verdict.upstreamMessage ?? this.#bodyText(exchange),
          timing,
        );
      default:
        return this.#finish(verdict.outcome, verdict.reason, null, timing);
    }
  }

  #failed(exchange: MeteredHandler, error: Error, timing: StreamTiming | undefined): RequestRecord {
    if (error instanceof PlannedCancelError) return this.#finish(PLANNED_CANCEL, error.message, null, timing);
    const failure = failureFromError(error, !Number.isNaN(exchange.headersAt), this.#options.idleTimeoutMs);
    const excerpt = exchange.keptBody().length > 0 ? this.#bodyText(exchange) : null;
    // A tokenmeter gateway that cut the stream said why in its last comment line: the reason is its.
    const comment = exchange.meter?.lastComment() ?? null;
    const message = comment?.startsWith(STREAM_CUT_COMMENT)
      ? `${failure.message} (gateway: ${comment.slice(STREAM_CUT_COMMENT.length)})`
      : failure.message;
    return this.#finish(failure.outcome, message, excerpt, timing);
  }

  readonly #countTokens = (text: string): number =>
    this.#options.tokenizer.count(text, { addSpecialTokens: false });

  #bodyText(exchange: MeteredHandler): string {
    return exchange.keptBody().subarray(0, this.#options.errorBodyBytes).toString('utf8');
  }

  #finish(
    outcome: ClientOutcome,
    error: string | null,
    excerpt: string | null,
    timing: StreamTiming | undefined,
  ): RequestRecord {
    const o = this.#options;
    const sentAt = this.#sentAtMs;
    const headersAt = this.exchange.headersAt;
    // vLLM: the server's usage.completion_tokens, else the generated text re-tokenized without special tokens.
    const figures =
      timing === undefined
        ? undefined
        : streamFigures(timing, sentAt ?? 0, { countTokens: this.#countTokens });
    const sent = sentAt !== null;
    const text = figures?.text ?? '';
    const record: RequestRecord = {
      index: o.index,
      traceId: o.trace.traceId,
      spanId: o.trace.spanId,
      intendedOffsetMs: o.intendedOffsetMs,
      sentAtMs: sentAt === null ? null : sentAt - o.runStartMs,
      clientQueueMs: this.#clientQueueMs,
      ttfbMs: sentAt === null || Number.isNaN(headersAt) ? null : headersAt - sentAt,
      ttftMs: sent ? (figures?.ttftMs ?? null) : null,
      ttfoMs: sent ? (figures?.ttfoMs ?? null) : null,
      itlMs: sent ? [...(figures?.itlMs ?? [])] : [],
      ...(sent && figures?.itlCut === true ? { itlMsCut: true } : {}),
      lastTokenMs: sent ? (figures?.lastTokenMs ?? null) : null,
      outputTokens: figures?.outputTokens ?? 0,
      outputTokensSource: figures?.outputTokensSource === 'usage' ? 'usage' : 'tokenizer',
      reasoningTokens: figures?.reasoningTokens ?? null,
      promptTokens: o.promptTokens,
      ...(figures?.promptTokens === undefined ? {} : { usagePromptTokens: figures.promptTokens }),
      cachedPromptTokens: figures?.cachedPromptTokens ?? null,
      contentChunks: figures?.contentChunks ?? 0,
      ...(sent && figures !== undefined ? chunkUsageFields(figures) : {}),
      outcome,
      status: this.exchange.status === 0 ? null : this.exchange.status,
      error,
      errorBodyExcerpt: excerpt,
      generatedTextLength: text.length,
    };
    if (o.cancelAfterMs !== undefined) record.cancelDelayMs = o.cancelAfterMs;
    if (this.#cancelledAt !== undefined && outcome === PLANNED_CANCEL && sentAt !== null)
      record.cancelledAtMs = this.#cancelledAt - sentAt;
    if (o.keepText) record.generatedText = text;
    if (this.#gatewayVersion !== undefined) record.gatewayVersion = this.#gatewayVersion;
    if (timing?.implausibleUsage !== undefined) record.implausibleUsage = timing.implausibleUsage;
    this.#record = record;
    return record;
  }
}
