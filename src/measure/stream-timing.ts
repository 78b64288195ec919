// The timing record of one streamed response, as StreamMeter builds it. Times are the caller's clock
// (performance.now() milliseconds), taken when the bytes arrived; stream-figures.ts turns them into TTFT, ITL,
// TPOT and the last token's time relative to the request's start.

/**
 * Where an output token count came from: the upstream's `usage`, the built-in estimate of the text (the meter, the
 * gateway), or the load generator's tokenizer over the generated text (as vLLM counts).
 */
export type OutputTokenSource = 'usage' | 'estimate' | 'tokenizer';

/** Gaps between consecutive content events, kept as a summary so that memory stays bounded on long streams. */
export interface GapSummary {
  readonly count: number;
  readonly sumMs: number;
  /** 0 when count is 0. */
  readonly minMs: number;
  /** 0 when count is 0. */
  readonly maxMs: number;
  /**
   * How many gaps fell in each bucket of the gateway's gap histogram (gap-buckets.ts): index i counts the gaps
   * of at most GAP_BUCKET_BOUNDS_S[i] seconds and more than the bound before it, the last index those past every
   * bound. Not cumulative. Empty when count is 0, GAP_BUCKET_BOUNDS_S.length + 1 long otherwise.
   */
  readonly bucketCounts: readonly number[];
}

/**
 * Every gap between consecutive content events, in arrival order, up to a bound; kept only when StreamMeter's
 * keepChunkDetail is set (the load generator's ITL percentiles, the gateway's records.gaps).
 */
export interface KeptGaps {
  /** The first min(gaps, MAX_KEPT_GAPS) gaps, milliseconds. */
  readonly gapsMs: readonly number[];
  /** More gaps arrived than MAX_KEPT_GAPS: gapsMs holds only the first ones (GapSummary still counts all). */
  readonly cut: boolean;
}

/**
 * What the running usage on content events said (vLLM's `stream_options.continuous_usage_stats`: cumulative
 * `usage` on every chunk): a content event's tokens are the growth of `completion_tokens` since the previous
 * content event that carried it. All 0 when no content event carried usage.
 */
export interface ChunkUsage {
  /** Content events that carried a usage. Equal to contentEvents when every one did. */
  readonly chunks: number;
  /** Tokens of the first content event (its completion_tokens). */
  readonly firstChunkTokens: number;
  /** completion_tokens on the last content event that carried usage (tokens counted after it excluded). */
  readonly lastCompletionTokens: number;
  /** Content events of more than one token. */
  readonly multiTokenChunks: number;
  readonly maxChunkTokens: number;
  /** Arrival of the last content event whose usage grew (0 when none did). */
  readonly lastTokensAtMs: number;
  /**
   * Tokens of each content event in arrival order, with keepChunkDetail (undefined otherwise), up to
   * MAX_KEPT_GAPS + 1 of them (one more than the kept gaps: entry i + 1 is the chunk after gap i).
   */
  readonly keptChunkTokens: readonly number[] | undefined;
}

/** The chunk usage of a stream whose content events carried none. Shared, never mutated. */
export const NO_CHUNK_USAGE: ChunkUsage = Object.freeze({
  chunks: 0,
  firstChunkTokens: 0,
  lastCompletionTokens: 0,
  multiTokenChunks: 0,
  maxChunkTokens: 0,
  lastTokensAtMs: 0,
  keptChunkTokens: undefined,
});

export interface StreamTiming {
  /** The classifier's protocol, e.g. `openai-chat`. */
  readonly protocol: string;
  /** Arrival of the first byte of the body. */
  readonly firstByteMs: number | undefined;
  /** Arrival of the first event carrying generated output (role-only and empty deltas excluded). */
  readonly firstContentMs: number | undefined;
  /**
   * Arrival of the first event carrying answer output: content that is not reasoning (EventFacts.reasoning). The
   * same as firstContentMs for a model that does not reason; later for one that reasons first; undefined when only
   * reasoning arrived.
   */
  readonly firstAnswerMs: number | undefined;
  /** Arrival of the last event carrying generated output (usage chunk and `[DONE]` excluded). */
  readonly lastContentMs: number | undefined;
  /** When the caller ended the meter; undefined until then. */
  readonly endMs: number | undefined;
  /** Events carrying generated output. One event is one chunk, whatever number of tokens it holds. */
  readonly contentEvents: number;
  readonly contentGaps: GapSummary;
  readonly keptGaps: KeptGaps | undefined;
  /** Most estimated tokens one content event added (0 without content): how batched the chunks were. */
  readonly maxChunkEstimatedTokens: number;
  /** Tokens per content event from the running usage, when the upstream put one on content events. */
  readonly chunkUsage: ChunkUsage;
  /** Length of all generated text, in UTF-16 code units. */
  readonly contentChars: number;
  /** Output tokens by the built-in estimate of the generated text. */
  readonly estimatedOutputTokens: number;
  /** `usage.prompt_tokens` (or the protocol's equivalent) when the upstream reported it. */
  readonly promptTokens: number | undefined;
  /** Of promptTokens, those read from the upstream's prompt cache, when it said (src/protocols/usage.ts). */
  readonly cachedPromptTokens: number | undefined;
  /** `usage.completion_tokens` (or the protocol's equivalent) when the upstream reported it. */
  readonly usageOutputTokens: number | undefined;
  /** Of usageOutputTokens, the reasoning tokens, when the upstream reported them (OpenAI's token details). */
  readonly usageReasoningTokens: number | undefined;
  /** Tokens of reasoning text by the built-in estimate (Anthropic reports none apart). */
  readonly estimatedReasoningTokens: number;
  /** The upstream's count when reported, otherwise the estimate; `outputTokensSource` says which. */
  readonly outputTokens: number;
  readonly outputTokensSource: OutputTokenSource;
  readonly finishReason: string | undefined;
  /** Tool calls the answer asked the client to run (distinct EventFacts.toolCallIndexes). */
  readonly toolCalls: number;
  /** The answer's own id, when its protocol streams one (Responses). */
  readonly responseId: string | undefined;
  /** The protocol's end marker arrived (`data: [DONE]` for OpenAI). */
  readonly sawDone: boolean;
  /** Message of the first error event inside the stream. */
  readonly errorMessage: string | undefined;
  /** An event outgrew the size limit and was skipped (never classified); later events were parsed. */
  readonly overflowed: boolean;
  /** The stream ended inside an event (no closing blank line); that event was discarded. */
  readonly endedMidEvent: boolean;
  /** Events whose data was not the JSON the protocol promises. */
  readonly unparseableEvents: number;
  /** Why a usage the stream carried was not read (reported-usage.ts: a count no answer can have); the first one. */
  readonly implausibleUsage: string | undefined;
  /** SSE events dispatched (content or not). */
  readonly events: number;
  /** Body bytes received. */
  readonly bytes: number;
  /** All generated text, only when StreamMeter's keepText is set. */
  readonly text: string | undefined;
}
