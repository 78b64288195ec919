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
}

/** Per content event, in arrival order; kept only when StreamMeter's keepChunkDetail is set. */
export interface ContentChunkDetail {
  readonly atMs: readonly number[];
  /** Length of the event's generated text, in UTF-16 code units. */
  readonly chars: readonly number[];
  /** Estimated tokens the event added; they sum to StreamTiming.estimatedOutputTokens. */
  readonly estimatedTokens: readonly number[];
}

export interface StreamTiming {
  /** The classifier's protocol, e.g. `openai-chat`. */
  readonly protocol: string;
  /** Arrival of the first byte of the body. */
  readonly firstByteMs: number | undefined;
  /** Arrival of the first event carrying generated output (role-only and empty deltas excluded). */
  readonly firstContentMs: number | undefined;
  /** Arrival of the last event carrying generated output (usage chunk and `[DONE]` excluded). */
  readonly lastContentMs: number | undefined;
  /** When the caller ended the meter; undefined until then. */
  readonly endMs: number | undefined;
  /** Events carrying generated output. One event is one chunk, whatever number of tokens it holds. */
  readonly contentEvents: number;
  readonly contentGaps: GapSummary;
  readonly chunkDetail: ContentChunkDetail | undefined;
  /** Length of all generated text, in UTF-16 code units. */
  readonly contentChars: number;
  /** Output tokens by the built-in estimate of the generated text. */
  readonly estimatedOutputTokens: number;
  /** `usage.prompt_tokens` (or the protocol's equivalent) when the upstream reported it. */
  readonly promptTokens: number | undefined;
  /** Of promptTokens, those read from the upstream's prompt cache, when it said (src/measure/prompt-usage.ts). */
  readonly cachedPromptTokens: number | undefined;
  /** `usage.completion_tokens` (or the protocol's equivalent) when the upstream reported it. */
  readonly usageOutputTokens: number | undefined;
  /** The upstream's count when reported, otherwise the estimate; `outputTokensSource` says which. */
  readonly outputTokens: number;
  readonly outputTokensSource: OutputTokenSource;
  readonly finishReason: string | undefined;
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
  /** SSE events dispatched (content or not). */
  readonly events: number;
  /** Body bytes received. */
  readonly bytes: number;
  /** All generated text, only when StreamMeter's keepText is set. */
  readonly text: string | undefined;
}
