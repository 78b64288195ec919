// What a non-streamed JSON answer told us: the facts each protocol's answer reader (src/protocols) extracts, and
// the outcome rule (stream-outcome.ts's answerOutcome) and both records read.

export interface JsonAnswerFacts {
  promptTokens: number | null;
  /** Of promptTokens, those read from the upstream's prompt cache (src/measure/prompt-usage.ts). */
  cachedPromptTokens: number | null;
  outputTokens: number | null;
  source: 'usage' | 'estimate' | null;
  finishReason: string | null;
  /** Tool calls the answer asks the client to run (as the stream's StreamTiming.toolCalls counts them). */
  toolCalls: number | null;
  /** The answer's own id, where its protocol gives one (Responses), for previous_response_id chains. */
  responseId: string | null;
  /** Set when a 2xx body holds an error object instead of an answer. */
  errorMessage: string | null;
  /** Set when its usage held a count no answer can have (reported-usage.ts): why; none of its counts was read. */
  implausibleUsage?: string;
  /**
   * Why the body holds no answer at all, when it holds none: not JSON (an HTML page), empty (a 204, an empty 200),
   * or no choices (`choices: []`; Responses' `output`, Anthropic's `content`). The same content streamed carries no
   * generated text, and both are upstream_error_body (stream-outcome.ts). Null for an answer.
   */
  notAnswer: string | null;
}
