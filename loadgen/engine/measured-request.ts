// One request's measurement, shared by every engine: the engine reports what happened on the wire (sent,
// response headers, each body chunk with its arrival time, the end or the error) and this class turns it into
// the RequestRecord. Body chunks go through the same StreamMeter as the gateway's, so both measure alike and
// role-only deltas never count as the first token.

import { performance } from 'node:perf_hooks';
import { deriveLatencies } from '../../src/measure/derive-latencies.js';
import { StreamMeter } from '../../src/measure/stream-meter.js';
import { type ProtocolName, protocolByName } from '../../src/protocols/index.js';
import type { RequestOutcome, RequestRecord } from '../record.js';
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
    if (this.#status === null || this.#status < 200 || this.#status > 299) {
      const status = this.#status ?? 0;
      return this.#finish('http_error', `${status} ${this.#statusText}`.trim(), this.#bodyText());
    }
    if (timing.errorMessage !== undefined) {
      return this.#finish(
        'upstream_error_body',
        `HTTP ${this.#status} with an error event in the stream`,
        timing.errorMessage,
      );
    }
    if (timing.contentEvents === 0) {
      return this.#finish(
        'upstream_error_body',
        `HTTP ${this.#status} but no chunk carried generated text`,
        this.#bodyText(),
      );
    }
    if (!timing.sawDone && timing.finishReason === undefined) {
      return this.#finish('truncated', 'the stream ended without a finish reason or [DONE]', null);
    }
    return this.#finish('ok', null, null);
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
    return this.#finish('aborted', 'run stopped before this request was sent', null);
  }

  #bodyText(): string {
    return Buffer.concat(this.#bodyStart).toString('utf8');
  }

  #finish(outcome: RequestOutcome, error: string | null, excerpt: string | null): RequestRecord {
    this.#finished = true;
    const o = this.#options;
    const sentAt = this.#sentAtMs;
    const timing = this.#meter.result();
    const latencies = sentAt === null ? undefined : deriveLatencies(timing, sentAt);
    const text = timing.text ?? '';
    const usage = timing.usageOutputTokens;
    const record: RequestRecord = {
      index: o.index,
      intendedOffsetMs: o.intendedOffsetMs,
      sentAtMs: sentAt === null ? null : sentAt - o.runStartMs,
      clientQueueMs: this.#clientQueueMs,
      ttfbMs: sentAt === null || this.#headersAtMs === null ? null : this.#headersAtMs - sentAt,
      ttftMs: latencies?.ttftMs ?? null,
      itlMs: [...(latencies?.itlSamplesMs ?? [])],
      e2elMs: latencies?.e2elMs ?? null,
      // vLLM: the server's usage.completion_tokens, else the generated text re-tokenized without special tokens.
      outputTokens: usage ?? (text === '' ? 0 : o.tokenizer.count(text, { addSpecialTokens: false })),
      outputTokensSource: usage === undefined ? 'tokenizer' : 'usage',
      promptTokens: o.promptTokens,
      chunkCount: timing.contentEvents,
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
