// One request's measurement, shared by every engine: the engine reports what happened on the wire (sent,
// response headers, each body chunk with its arrival time, the end or the error) and this class turns it into
// the RequestRecord. Body chunks go through the same StreamMeter as the gateway's, so both measure alike and
// role-only deltas never count as the first token.

import { performance } from 'node:perf_hooks';
import type { Outcome } from '../../src/measure/outcome.js';
import { streamFigures } from '../../src/measure/stream-figures.js';
import { StreamMeter } from '../../src/measure/stream-meter.js';
import { streamOutcome } from '../../src/measure/stream-outcome.js';
import type { StreamTiming } from '../../src/measure/stream-timing.js';
import { type ProtocolName, protocolByName } from '../../src/protocols/index.js';
import type { RequestRecord } from '../record.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';
import { type FailureKind, failureFromError } from './failure-kind.js';

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
}

export class MeasuredRequest {
  readonly #options: MeasuredRequestOptions;
  readonly #meter: StreamMeter;
  #sentAtMs: number | null = null;
  #clientQueueMs = 0;
  #headersAtMs: number | null = null;
  #status: number | null = null;
  #statusText = '';
  /** The start of the body, kept for failures (the whole of it is not needed, and could be huge). */
  #bodyStart: Buffer[] = [];
  #bodyStartBytes = 0;
  #finished = false;

  constructor(options: MeasuredRequestOptions) {
    this.#options = options;
    const classifier = protocolByName(options.protocol).classifier;
    this.#meter = new StreamMeter({ classifier, keepChunkDetail: true, keepText: true });
  }

  get finished(): boolean {
    return this.#finished;
  }

  get sent(): boolean {
    return this.#sentAtMs !== null;
  }

  /** The request is about to be written; `queuedMs` is how long it waited for a concurrency slot. */
  markSent(atMs: number, queuedMs = 0): void {
    this.#sentAtMs = atMs;
    this.#clientQueueMs = queuedMs;
  }

  onHeaders(status: number, statusText: string, atMs: number): void {
    this.#headersAtMs = atMs;
    this.#status = status;
    this.#statusText = statusText;
  }

  onBody(chunk: Buffer, atMs: number): void {
    this.#meter.onBytes(chunk, atMs);
    if (this.#bodyStartBytes < this.#options.errorBodyBytes) {
      const room = this.#options.errorBodyBytes - this.#bodyStartBytes;
      const part = chunk.length <= room ? Buffer.from(chunk) : chunk.subarray(0, room);
      this.#bodyStart.push(part);
      this.#bodyStartBytes += part.length;
    }
  }

  /** The response ended normally (the whole body arrived). */
  complete(atMs = performance.now()): RequestRecord {
    this.#meter.end(atMs);
    const timing = this.#meter.result();
    const status = this.#status ?? 0;
    const verdict = streamOutcome(status, timing);
    switch (verdict.outcome) {
      case 'http_error':
        return this.#finish(
          verdict.outcome,
          `${status} ${this.#statusText}`.trim(),
          this.#bodyText(),
          timing,
        );
      case 'upstream_error_body':
        return this.#finish(
          verdict.outcome,
          verdict.reason,
          verdict.upstreamMessage ?? this.#bodyText(),
          timing,
        );
      default:
        return this.#finish(verdict.outcome, verdict.reason, null, timing);
    }
  }

  /** The request failed on the wire (connection, timeout, reset) or was cancelled by us. */
  fail(error: unknown, atMs = performance.now(), kind?: FailureKind): RequestRecord {
    this.#meter.end(atMs);
    const failure = kind ?? failureFromError(error, this.#headersAtMs !== null);
    return this.#finish(failure.outcome, failure.message, this.#bodyStartBytes > 0 ? this.#bodyText() : null);
  }

  /** Cancelled while still waiting for its slot: it never went on the wire. */
  abortUnsent(queuedMs: number): RequestRecord {
    this.#clientQueueMs = queuedMs;
    return this.#finish('client_abort', 'run stopped before this request was sent', null);
  }

  readonly #countTokens = (text: string): number =>
    this.#options.tokenizer.count(text, { addSpecialTokens: false });

  #bodyText(): string {
    return Buffer.concat(this.#bodyStart).toString('utf8');
  }

  #finish(
    outcome: Outcome,
    error: string | null,
    excerpt: string | null,
    timing: StreamTiming = this.#meter.result(),
  ): RequestRecord {
    this.#finished = true;
    const o = this.#options;
    const sentAt = this.#sentAtMs;
    // vLLM: the server's usage.completion_tokens, else the generated text re-tokenized without special tokens.
    const figures = streamFigures(timing, sentAt ?? 0, { countTokens: this.#countTokens });
    const sent = sentAt !== null;
    const text = figures.text ?? '';
    const record: RequestRecord = {
      index: o.index,
      intendedOffsetMs: o.intendedOffsetMs,
      sentAtMs: sentAt === null ? null : sentAt - o.runStartMs,
      clientQueueMs: this.#clientQueueMs,
      ttfbMs: sentAt === null || this.#headersAtMs === null ? null : this.#headersAtMs - sentAt,
      ttftMs: sent ? (figures.ttftMs ?? null) : null,
      itlMs: sent ? [...(figures.itlMs ?? [])] : [],
      lastTokenMs: sent ? (figures.lastTokenMs ?? null) : null,
      outputTokens: figures.outputTokens,
      outputTokensSource: figures.outputTokensSource === 'usage' ? 'usage' : 'tokenizer',
      promptTokens: o.promptTokens,
      contentChunks: figures.contentChunks,
      outcome,
      status: this.#status,
      error,
      errorBodyExcerpt: excerpt,
      generatedTextLength: text.length,
    };
    if (o.keepText) record.generatedText = text;
    return record;
  }
}
