// Per-request meter: turns the timestamped bytes of one streamed response into a StreamTiming record.
//
// The caller stamps each chunk with the moment it arrived (performance.now()) and the meter never reads a clock,
// so the gateway and the load generator measure identically and tests can use hand-picked times. An event is
// stamped with the arrival time of the chunk that completed it.
//
//   const meter = new StreamMeter({ classifier: openAiChatClassifier });
//   on each body chunk:  forward(meter.onBytes(chunk, performance.now()));
//   at the end (normal, error or abort):  forward(meter.end(performance.now()));
//   const figures = streamFigures(meter.result(), requestStartMs);

import { SseEventRemover } from '../sse/event-remover.js';
import { DEFAULT_MAX_EVENT_BYTES, type SseEvent, SseParser } from '../sse/sse-parser.js';
import type { EventClassifier } from './answer-facts.js';
import { GAP_BUCKET_BOUNDS_S, gapBucketIndex } from './gap-buckets.js';
import { KeptText } from './kept-text.js';
import { OutputTokenCounter } from './output-token-counter.js';
import { NO_CHUNK_USAGE, type StreamTiming } from './stream-timing.js';

/**
 * Most gaps kept per stream with keepChunkDetail: 100,000 numbers (under 1 MB, about 0.8 MB as a JSON list of
 * the gateway's records.gaps), past any answer a model is asked for (vLLM's benchmark asks for a few thousand
 * tokens; a long reasoning answer is some tens of thousands), while a hostile or runaway stream of millions of
 * events keeps the meter's memory and the record's size bounded. The record says when it was reached.
 */
export const MAX_KEPT_GAPS = 100_000;

export interface StreamMeterOptions {
  readonly classifier: EventClassifier;
  /** Largest SSE event parsed; a bigger one is skipped and parsing resumes at the next event. Default 1 MiB. */
  readonly maxEventBytes?: number;
  /**
   * Keep every gap between content events, up to MAX_KEPT_GAPS (the figures of the gaps, their bucket counts
   * among them, are kept whatever this says).
   */
  readonly keepChunkDetail?: boolean;
  /**
   * Keep the generated text, up to MAX_KEPT_TEXT_CHARS (kept-text.ts): `textCut` says when the stream passed it,
   * and the text is then its start.
   */
  readonly keepText?: boolean;
  /**
   * Remove usage-only events from the bytes returned by onBytes/end, for a gateway that added
   * `stream_options.include_usage` on its own. They are still measured. Every other byte passes unchanged.
   */
  readonly removeUsageOnlyEvents?: boolean;
}

const NO_BYTES = Buffer.alloc(0);
const NO_COUNTS: readonly number[] = Object.freeze([]);

/** The most tool calls one answer is counted with: far beyond any real answer's parallel calls. */
const MAX_TOOL_CALLS = 1024;

export class StreamMeter {
  readonly #classifier: EventClassifier;
  readonly #parser: SseParser;
  readonly #remover: SseEventRemover | undefined;
  readonly #tokens = new OutputTokenCounter();
  readonly #keptGaps: number[] | undefined;
  #gapsCut = false;
  // Each content event's tokens by the running usage it carried (continuous_usage_stats), with keepChunkDetail;
  // allocated at the first such event.
  #keptChunkTokens: number[] | undefined;
  readonly #text: KeptText | undefined;

  // Arrival time of the chunk being parsed: the time of every event it completes.
  #nowMs = 0;
  #firstByteMs: number | undefined;
  #firstContentMs: number | undefined;
  #firstAnswerMs: number | undefined;
  #lastContentMs: number | undefined;
  #endMs: number | undefined;
  #contentEvents = 0;
  #gapSumMs = 0;
  #gapMinMs = 0;
  #gapMaxMs = 0;
  // Allocated at the first gap: a stream without one (an error, a one-chunk answer) costs nothing here.
  #gapBucketCounts: number[] | undefined;
  #maxChunkTokens = 0;
  // Content events that carried a running usage, the count on the first and last of them, those of more than one.
  #usageChunks = 0;
  #firstChunkUsage = 0;
  #lastChunkUsage = 0;
  #multiTokenChunks = 0;
  #maxChunkUsageTokens = 0;
  #lastTokensAtMs = 0;
  #contentChars = 0;
  #promptTokens: number | undefined;
  #cachedPromptTokens: number | undefined;
  #usageOutputTokens: number | undefined;
  #usageReasoningTokens: number | undefined;
  #estimatedReasoningTokens = 0;
  #finishReason: string | undefined;
  // Allocated at the first tool call: most answers have none.
  #toolCallIndexes: Set<number> | undefined;
  #responseId: string | undefined;
  #sawDone = false;
  #errorMessage: string | undefined;
  #unparseableEvents = 0;
  #implausibleUsage: string | undefined;

  constructor(options: StreamMeterOptions) {
    this.#classifier = options.classifier;
    this.#text = options.keepText === true ? new KeptText() : undefined;
    this.#keptGaps = options.keepChunkDetail ? [] : undefined;
    this.#remover = options.removeUsageOnlyEvents ? new SseEventRemover() : undefined;
    this.#parser = new SseParser((event) => this.#onEvent(event), {
      maxEventBytes: options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES,
    });
  }

  /**
   * Measures the next body chunk, which arrived at `atMs`. Returns the bytes to forward: `chunk` itself unless
   * removeUsageOnlyEvents is set, in which case an incomplete event may be held back until its end arrives.
   */
  onBytes<Chunk extends Uint8Array>(chunk: Chunk, atMs: number): Chunk | Buffer {
    if (this.#firstByteMs === undefined && chunk.length > 0) this.#firstByteMs = atMs;
    this.#nowMs = atMs;
    this.#parser.push(chunk);
    if (this.#remover === undefined) return chunk;
    return this.#remover.take(chunk, this.#parser.pendingEventStart);
  }

  /** The generated text passed the bound on what is kept (keepText): the text kept is only its start. */
  get textCut(): boolean {
    return this.#text?.cut === true;
  }

  /**
   * Ends the stream at `atMs`, whatever the reason. Returns the bytes still to forward (only ever non-empty with
   * removeUsageOnlyEvents, when the stream stopped inside an event: it is forwarded as it came).
   */
  end(atMs: number): Buffer {
    if (this.#endMs === undefined) this.#endMs = atMs;
    this.#parser.end();
    return this.#remover === undefined ? NO_BYTES : this.#remover.flush();
  }

  /** The stream's latest SSE comment line, colon included (a gateway's reason for a cut is one); null without one.
   *  Decoded here, when asked, so a ping costs the meter no string. */
  lastComment(): string | null {
    const line = this.#parser.lastComment;
    return line === null ? null : Buffer.from(line.buffer, line.byteOffset, line.byteLength).toString('utf8');
  }

  /** The record so far; complete once end() was called. */
  result(): StreamTiming {
    const usage = this.#usageOutputTokens;
    return {
      protocol: this.#classifier.protocol,
      firstByteMs: this.#firstByteMs,
      firstContentMs: this.#firstContentMs,
      firstAnswerMs: this.#firstAnswerMs,
      lastContentMs: this.#lastContentMs,
      endMs: this.#endMs,
      contentEvents: this.#contentEvents,
      contentGaps: {
        count: Math.max(0, this.#contentEvents - 1),
        sumMs: this.#gapSumMs,
        minMs: this.#gapMinMs,
        maxMs: this.#gapMaxMs,
        bucketCounts: this.#gapBucketCounts ?? NO_COUNTS,
      },
      keptGaps: this.#keptGaps === undefined ? undefined : { gapsMs: this.#keptGaps, cut: this.#gapsCut },
      maxChunkEstimatedTokens: this.#maxChunkTokens,
      chunkUsage:
        this.#usageChunks === 0
          ? NO_CHUNK_USAGE
          : {
              chunks: this.#usageChunks,
              firstChunkTokens: this.#firstChunkUsage,
              lastCompletionTokens: this.#lastChunkUsage,
              multiTokenChunks: this.#multiTokenChunks,
              maxChunkTokens: this.#maxChunkUsageTokens,
              lastTokensAtMs: this.#lastTokensAtMs,
              keptChunkTokens: this.#keptChunkTokens,
            },
      contentChars: this.#contentChars,
      estimatedOutputTokens: this.#tokens.total,
      promptTokens: this.#promptTokens,
      cachedPromptTokens: this.#cachedPromptTokens,
      usageOutputTokens: usage,
      usageReasoningTokens: this.#usageReasoningTokens,
      estimatedReasoningTokens: this.#estimatedReasoningTokens,
      outputTokens: usage ?? this.#tokens.total,
      outputTokensSource: usage === undefined ? 'estimate' : 'usage',
      finishReason: this.#finishReason,
      toolCalls: this.#toolCallIndexes?.size ?? 0,
      responseId: this.#responseId,
      sawDone: this.#sawDone,
      errorMessage: this.#errorMessage,
      overflowed: this.#parser.overflowed,
      endedMidEvent: this.#parser.endedMidEvent,
      unparseableEvents: this.#unparseableEvents,
      implausibleUsage: this.#implausibleUsage,
      events: this.#parser.events,
      bytes: this.#parser.bytesSeen,
      text: this.#text?.text,
    };
  }

  #onEvent(event: SseEvent): void {
    const facts = this.#classifier.classify(event);
    if (facts.contentText !== undefined) this.#onContent(facts.contentText, facts.reasoning === true);
    if (facts.promptTokens !== undefined) this.#promptTokens = facts.promptTokens;
    if (facts.cachedPromptTokens !== undefined) this.#cachedPromptTokens = facts.cachedPromptTokens;
    if (facts.completionTokens !== undefined) {
      if (facts.contentText !== undefined) this.#onChunkUsage(facts.completionTokens);
      this.#usageOutputTokens = facts.completionTokens;
    }
    if (facts.reasoningTokens !== undefined) this.#usageReasoningTokens = facts.reasoningTokens;
    if (facts.finishReason !== undefined && this.#finishReason === undefined) {
      this.#finishReason = facts.finishReason;
    }
    if (facts.toolCallIndexes !== undefined) this.#onToolCalls(facts.toolCallIndexes);
    if (facts.responseId !== undefined) this.#responseId ??= facts.responseId;
    if (facts.done) this.#sawDone = true;
    if (facts.errorMessage !== undefined && this.#errorMessage === undefined) {
      this.#errorMessage = facts.errorMessage;
    }
    if (facts.unparseable) this.#unparseableEvents++;
    if (facts.implausibleUsage !== undefined) this.#implausibleUsage ??= facts.implausibleUsage;
    if (facts.usageOnly && this.#remover !== undefined) this.#remover.remove(event);
  }

  #onToolCalls(indexes: readonly number[]): void {
    this.#toolCallIndexes ??= new Set();
    const seen = this.#toolCallIndexes;
    // An upstream inventing an index per event cannot grow the set without bound.
    for (const index of indexes) if (seen.size < MAX_TOOL_CALLS) seen.add(index);
  }

  #onContent(text: string, reasoning: boolean): void {
    const atMs = this.#nowMs;
    if (!reasoning && this.#firstAnswerMs === undefined) this.#firstAnswerMs = atMs;
    if (this.#lastContentMs === undefined) {
      this.#firstContentMs = atMs;
    } else {
      const gap = atMs - this.#lastContentMs;
      const first = this.#contentEvents === 1;
      this.#gapSumMs += gap;
      this.#gapMinMs = first ? gap : Math.min(this.#gapMinMs, gap);
      this.#gapMaxMs = first ? gap : Math.max(this.#gapMaxMs, gap);
      this.#countGap(gap);
    }
    this.#lastContentMs = atMs;
    this.#contentEvents++;
    this.#contentChars += text.length;
    const tokens = this.#tokens.add(text);
    if (tokens > this.#maxChunkTokens) this.#maxChunkTokens = tokens;
    if (reasoning) this.#estimatedReasoningTokens += tokens;
    this.#text?.add(text);
  }

  /**
   * A content event that carried a running usage (vLLM's continuous_usage_stats): its tokens are the growth of the
   * count since the last content event that carried one (tokens counted on other events in between join it).
   */
  #onChunkUsage(completionTokens: number): void {
    const tokens = Math.max(0, completionTokens - this.#lastChunkUsage);
    if (this.#usageChunks === 0) this.#firstChunkUsage = tokens;
    this.#usageChunks++;
    this.#lastChunkUsage = Math.max(completionTokens, this.#lastChunkUsage);
    if (tokens > 0) this.#lastTokensAtMs = this.#nowMs;
    if (tokens > 1) this.#multiTokenChunks++;
    if (tokens > this.#maxChunkUsageTokens) this.#maxChunkUsageTokens = tokens;
    if (this.#keptGaps === undefined) return;
    this.#keptChunkTokens ??= [];
    const kept = this.#keptChunkTokens;
    // One more than the gaps: the first content event has no gap before it.
    if (kept.length <= MAX_KEPT_GAPS) kept.push(tokens);
  }

  #countGap(gap: number): void {
    this.#gapBucketCounts ??= new Array<number>(GAP_BUCKET_BOUNDS_S.length + 1).fill(0);
    const counts = this.#gapBucketCounts;
    const bucket = gapBucketIndex(gap);
    counts[bucket] = (counts[bucket] as number) + 1;
    const kept = this.#keptGaps;
    if (kept === undefined) return;
    if (kept.length < MAX_KEPT_GAPS) kept.push(gap);
    else this.#gapsCut = true;
  }
}
