// What one SSE event means for measurement, behind one interface so that every protocol (OpenAI chat and
// completions now; Anthropic Messages and OpenAI Responses later) feeds the same StreamMeter.

import type { SseEvent } from '../sse/sse-parser.js';

/**
 * The facts one event carries. Every field is optional because most events carry few of them; an event may carry
 * several at once (Anthropic's `message_delta` has usage and the stop reason, OpenAI Responses' `response.completed`
 * has usage and marks the end).
 */
export interface EventFacts {
  /**
   * Generated output in this event (answer text, reasoning text, tool-call arguments), never empty: an event with
   * no generated output leaves it out. Its presence is what makes the event a content event (first token, ITL).
   */
  readonly contentText?: string;
  /**
   * The event's generated text is reasoning (thinking) only: it counts as a token for TTFT, as vLLM counts it, but
   * the answer has not started (time to first output token waits for a content event without this).
   */
  readonly reasoning?: true;
  /** Prompt (input) tokens as the upstream reported them, cached ones included (prompt-usage.ts). */
  readonly promptTokens?: number;
  /** Of promptTokens, those the upstream read from its prompt cache. */
  readonly cachedPromptTokens?: number;
  /** Completion (output) tokens as the upstream reported them. */
  readonly completionTokens?: number;
  /** Of completionTokens, those the upstream reports as reasoning (OpenAI's `reasoning_tokens` details). */
  readonly reasoningTokens?: number;
  /**
   * The tool calls this event starts or continues, by their index in the answer (OpenAI's `tool_calls[].index`,
   * Anthropic's content block index, Responses' output index): the meter counts distinct indexes. Only calls the
   * client is asked to run (function tools), not tools the server ran itself.
   */
  readonly toolCallIndexes?: readonly number[];
  /** The answer's id (Responses' `response.id`), by which a later request's `previous_response_id` names it. */
  readonly responseId?: string;
  /** Why generation stopped (`stop`, `length`, `tool_calls`, `end_turn`, ...). */
  readonly finishReason?: string;
  /** The protocol's end-of-stream marker (`data: [DONE]`, `message_stop`, `response.completed`). */
  readonly done?: boolean;
  /** The message of an error sent inside the stream (an HTTP 200 whose body carries an error). */
  readonly errorMessage?: string;
  /** The event's data is not the JSON the protocol promises. Counted, never thrown. */
  readonly unparseable?: boolean;
  /** The event's usage held a count no answer can have (reported-usage.ts): why; none of its counts was read. */
  readonly implausibleUsage?: string;
  /**
   * The event exists only to report usage and is sent only on request (OpenAI's `stream_options.include_usage`);
   * a gateway that made that request on the client's behalf removes it.
   */
  readonly usageOnly?: boolean;
}

/** The facts of an event that carries nothing (pings, keep-alives, lifecycle events). Shared, never mutated. */
export const NO_FACTS: EventFacts = Object.freeze({});
/** The protocol's end marker and nothing else. Shared, never mutated. */
export const DONE_FACTS: EventFacts = Object.freeze({ done: true });
/** Data that is not the JSON the protocol promises. Shared, never mutated. */
export const UNPARSEABLE_FACTS: EventFacts = Object.freeze({ unparseable: true });

/** For classifiers assembling the facts of one event before returning them. */
export type MutableFacts = { -readonly [K in keyof EventFacts]: EventFacts[K] };

export interface EventClassifier {
  /** Protocol name as used in configuration and records, e.g. `openai-chat`. */
  readonly protocol: string;
  /** Reads one dispatched event. Must not throw, whatever the upstream sent. */
  classify(event: SseEvent): EventFacts;
}
