// What both records say about one exchange, under one name each: the gateway's record
// (src/gateway/records/record.ts) and the load generator's (loadgen/record.ts) extend this, so the same fact has
// the same name in both and a gateway record and a client record of one request compare field by field. Times are
// milliseconds from each side's own start (the gateway: the request's arrival; the load generator: the moment it
// was sent).
import type { ClientOutcome } from './outcome.js';
import type { OutputTokenSource } from './stream-timing.js';

export interface ExchangeFigures {
  /**
   * W3C Trace Context ids (src/shared/trace-context.ts): the trace this exchange belongs to and this side's own
   * span in it, lower-case hex. Absent from records written before tracing; present in every record since.
   */
  readonly traceId?: string;
  readonly spanId?: string;
  /** HTTP status of the answer; the gateway writes 0 and the load generator null when none arrived. */
  readonly status: number | null;
  /** The gateway's are Outcome's; the load generator's add `cancelled` (its planned cancellations). */
  readonly outcome: ClientOutcome;
  /** Response headers. */
  readonly ttfbMs: number | null;
  /** First content chunk (generated text, reasoning or tool arguments). */
  readonly ttftMs: number | null;
  /**
   * First answer chunk: content that is not reasoning (time to first output token, TTFO). Equal to ttftMs for a
   * model that does not reason, later for one that reasons first; null when no answer arrived. Absent from records
   * written before it.
   */
  readonly ttfoMs?: number | null;
  /**
   * Reasoning tokens: the upstream's count when it reports one (OpenAI's `completion_tokens_details.reasoning_tokens`,
   * Responses' `output_tokens_details.reasoning_tokens`), streamed or not; otherwise, for a metered stream, the
   * built-in estimate of the reasoning text (Anthropic thinking), 0 without reasoning; otherwise null. Included in
   * outputTokens. Absent from records written before it.
   */
  readonly reasoningTokens?: number | null;
  /** Last content chunk (vLLM's E2EL; the usage chunk and the end marker do not count). */
  readonly lastTokenMs: number | null;
  readonly promptTokens: number | null;
  /**
   * Of the prompt tokens, those the upstream read from its prompt cache, as its usage says
   * (`prompt_tokens_details.cached_tokens` and the other protocols' equivalents: each one's usage reader in
   * src/protocols/<protocol>/); null when it does not say. Absent from load generator records written before it.
   */
  readonly cachedPromptTokens?: number | null;
  readonly outputTokens: number | null;
  /** `usage` (the upstream's), `estimate` (the gateway's built-in rule), `tokenizer` (the load generator's). */
  readonly outputTokensSource: OutputTokenSource | null;
  /** Events carrying generated output. */
  readonly contentChunks: number;
  /** Gaps between consecutive content chunks (the gateway: with records.gaps only). */
  readonly itlMs?: readonly number[];
  /**
   * Written (true) only when the stream had more gaps than the record keeps (MAX_KEPT_GAPS, 100,000, in
   * src/measure/stream-meter.ts): itlMs then holds the first ones. Absent otherwise, and from older records.
   */
  readonly itlMsCut?: boolean;
  /**
   * Tokens of each content chunk, from the running usage the upstream put on every one (vLLM's
   * `stream_options.continuous_usage_stats`): the growth of `completion_tokens` since the previous chunk; entry
   * i + 1 is the chunk after gap itlMs[i]. Written only when every content chunk carried a usage (the gateway:
   * with records.gaps), like itlMs up to MAX_KEPT_GAPS + 1 entries. Absent otherwise, and from older records.
   */
  readonly chunkTokens?: readonly number[];
  /**
   * With a running usage on every content chunk: the chunks of more than one token (speculative decoding, a
   * batching gateway) and the mean per-token inter-token gap (docs/metrics.md, "Per-token gaps"; absent when no
   * token followed the first chunk). Absent without such a usage.
   */
  readonly multiTokenChunks?: number;
  readonly perTokenItlMs?: number;
  /** One line saying what went wrong; null when ok. */
  readonly error: string | null;
}
