// What an answer means for measurement, in the terms the meter and the outcome rules read whatever the protocol:
// one streamed event's facts (EventFacts, read by a protocol's EventClassifier, which feeds the StreamMeter) and a
// whole non-streamed answer's (JsonAnswerFacts, read by a protocol's readAnswer). Each protocol's readers live in
// its folder under src/protocols and reach measurement only through these types, handed in with its descriptor.

import { MAX_JSON_DEPTH, nestsDeeperThan } from '../shared/json-bytes.js';
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
  /** Prompt (input) tokens as the upstream reported them, cached ones included (src/protocols/usage.ts). */
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

/** What a non-streamed JSON answer told us; the outcome rule (stream-outcome.ts's answerOutcome) and both records read it. */
export interface JsonAnswerFacts {
  promptTokens: number | null;
  /** Of promptTokens, those read from the upstream's prompt cache. */
  cachedPromptTokens: number | null;
  /** Every generated token, reasoning included (as a stream's completionTokens). */
  outputTokens: number | null;
  /** Of outputTokens, those the upstream reports as reasoning (as a stream's reasoningTokens); null when it does not say. */
  reasoningTokens: number | null;
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

// The error message facts carry is bounded: long enough for any real provider message, short enough that one bad
// upstream cannot fill a record or a log line with it.
export const MAX_ERROR_MESSAGE_CHARS = 2000;

export function capErrorMessage(message: string): string {
  return message.length > MAX_ERROR_MESSAGE_CHARS ? message.slice(0, MAX_ERROR_MESSAGE_CHARS) : message;
}

/** True when `raw` nests objects or arrays deeper than the request bodies' bound. */
function nestsTooDeep(raw: string | Uint8Array): boolean {
  return nestsDeeperThan(typeof raw === 'string' ? Buffer.from(raw) : raw, MAX_JSON_DEPTH);
}

/**
 * The text of an error value an upstream sent as JSON, capped: its JSON, or the raw text it was parsed from when
 * that nests past the bound. JSON.parse takes any depth (V8's is iterative), but JSON.stringify recurses and gives
 * out at about 10,000 levels, which fit in one SSE event: thrown inside undici's callbacks, that would take the
 * exchange down with no record.
 */
export function errorJsonText(value: unknown, raw: string | Uint8Array): string {
  if (nestsTooDeep(raw)) {
    const text = typeof raw === 'string' ? raw : Buffer.from(raw).toString('utf8');
    return capErrorMessage(text);
  }
  return capErrorMessage(JSON.stringify(value));
}
