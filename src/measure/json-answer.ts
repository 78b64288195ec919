// What a non-streamed JSON answer told us: the facts each protocol's answer reader (src/protocols) extracts, and
// the outcome rule (stream-outcome.ts's answerOutcome) and both records read.

export interface JsonAnswerFacts {
  promptTokens: number | null;
  /** Of promptTokens, those read from the upstream's prompt cache (src/measure/prompt-usage.ts). */
  cachedPromptTokens: number | null;
  outputTokens: number | null;
  source: 'usage' | 'estimate' | null;
  finishReason: string | null;
  /** Set when a 2xx body holds an error object instead of an answer. */
  errorMessage: string | null;
}
