// The one rule for "how did an answer that ended normally end", shared by the gateway, both load generator
// engines and the doctor, so a stream is judged alike wherever it is measured. Failures on the wire (refused,
// reset, timeouts) are decided by src/measure/network-failure.ts instead.
//
// For a stream, in order:
//   status outside 2xx                     -> http_error
//   an error event in the stream           -> upstream_error_body
//   an event overflowed the parser's bound, -> truncated (the text may all have been in the event too big to
//   and no end marker and no finish reason     read: the stream was cut, whether or not a smaller chunk had text)
//   2xx but no chunk carried generated text -> upstream_error_body (vLLM fails such a request too)
//   no end marker and no finish reason     -> truncated (an oversized event is skipped, so a marker after it
//                                             still counts)
//   otherwise                              -> ok
//
// A stream whose reader stopped before the body ended (a client that closed, the load generator's run stopped or
// its planned cancellation) is judged by the same rule when its final event had already arrived
// (finalEventArrived: the protocol's end marker, or a finish reason with its usage): clients stop reading there
// (the openai package at `data: [DONE]`, Codex at `response.completed`) and close before the upstream's end of
// body, so such a close is the end of a finished answer. A reader that stopped before it left mid-answer
// (client_abort). The MeteredHandler applies it (its stop()), for the gateway and the load generator alike.
import type { JsonAnswerFacts } from './answer-facts.js';
import type { Outcome } from './outcome.js';
import type { StreamTiming } from './stream-timing.js';

/** The outcomes an answer that ended normally can have. */
export type AnswerOutcome = Extract<Outcome, 'ok' | 'http_error' | 'upstream_error_body' | 'truncated'>;

export interface OutcomeVerdict {
  readonly outcome: AnswerOutcome;
  /** One line saying why it is not ok; null when ok. */
  readonly reason: string | null;
  /** The upstream's own error message (error event or error body), when it sent one. */
  readonly upstreamMessage: string | null;
}

const OK: OutcomeVerdict = Object.freeze({ outcome: 'ok', reason: null, upstreamMessage: null });

function isSuccess(status: number): boolean {
  return status >= 200 && status <= 299;
}

function httpError(status: number): OutcomeVerdict {
  return { outcome: 'http_error', reason: `HTTP ${status}`, upstreamMessage: null };
}

/** The outcome of a streamed answer that ended normally, from its status and the meter's result. */
export function streamOutcome(status: number, timing: StreamTiming): OutcomeVerdict {
  if (!isSuccess(status)) return httpError(status);
  if (timing.errorMessage !== undefined) {
    return {
      outcome: 'upstream_error_body',
      reason: `HTTP ${status} with an error event in the stream`,
      upstreamMessage: timing.errorMessage,
    };
  }
  const ended = timing.sawDone || timing.finishReason !== undefined;
  if (timing.overflowed && !ended) {
    return {
      outcome: 'truncated',
      reason: 'the stream ended without a finish reason or [DONE] (an event outgrew the parser bound)',
      upstreamMessage: null,
    };
  }
  if (timing.contentEvents === 0) {
    return {
      outcome: 'upstream_error_body',
      reason: `HTTP ${status} but no chunk carried generated text`,
      upstreamMessage: null,
    };
  }
  if (!ended) {
    return {
      outcome: 'truncated',
      reason: 'the stream ended without a finish reason or [DONE]',
      upstreamMessage: null,
    };
  }
  return OK;
}

/**
 * The stream's final event arrived: its end marker (`data: [DONE]` for OpenAI chat and completions,
 * `response.completed` or `response.failed` for Responses, `message_stop` for Anthropic), or a finish reason
 * together with the usage (OpenAI's usage chunk, Anthropic's `message_delta`), after which only the marker can
 * follow. Nothing of the answer is still to come.
 */
export function finalEventArrived(timing: StreamTiming): boolean {
  return timing.sawDone || (timing.finishReason !== undefined && timing.usageOutputTokens !== undefined);
}

/**
 * The outcome of a non-streamed answer that ended normally: outside 2xx is http_error; a 2xx whose body holds an
 * error object instead of an answer is upstream_error_body, and so is one that holds no answer at all (not JSON,
 * empty, no choices: JsonAnswerFacts.notAnswer), as the same content streamed is (no chunk carried generated
 * text). `facts` is undefined when the body was not read (untimed endpoint, too large).
 */
export function answerOutcome(status: number, facts: JsonAnswerFacts | undefined): OutcomeVerdict {
  if (!isSuccess(status)) return httpError(status);
  if (facts?.errorMessage != null) {
    return {
      outcome: 'upstream_error_body',
      reason: `HTTP ${status} with an error object in the body`,
      upstreamMessage: facts.errorMessage,
    };
  }
  if (facts?.notAnswer != null) {
    return {
      outcome: 'upstream_error_body',
      reason: `HTTP ${status} but ${facts.notAnswer} instead of an answer`,
      upstreamMessage: null,
    };
  }
  return OK;
}
