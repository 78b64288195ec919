// Sorts a wire-level failure into the record's outcomes (by src/measure/network-failure.ts, the gateway's rule), so
// the report can say "the server refused the connection" rather than "fetch failed".

import { MAX_KEPT_TEXT_CHARS } from '../../src/measure/kept-text.js';
import {
  ABORTED_CODE,
  CONNECTION_CLOSED_CODE,
  type FailureOutcome,
  IDLE_TIMEOUT_CODE,
  networkFailure,
} from '../../src/measure/network-failure.js';

export interface FailureKind {
  readonly outcome: FailureOutcome;
  readonly message: string;
}

/** Raised by engines when the run is stopped (Ctrl-C, --smoke's first failure). */
export class RunAbortedError extends Error {
  override readonly name = 'RunAbortedError';
  readonly code = ABORTED_CODE;
  constructor() {
    super('run stopped before this request finished');
  }
}

/** The reason a request chosen by --request-cancellation-rate is aborted with, once its delay has passed. */
export class PlannedCancelError extends Error {
  override readonly name = 'PlannedCancelError';
  constructor(delayMs: number) {
    super(`cancelled as planned ${delayMs} ms after it was written (--request-cancellation-rate)`);
  }
}

/**
 * The answer's generated text passed the most a request keeps (MAX_KEPT_TEXT_CHARS): the request stops reading it,
 * its record is cut short there (`truncated`, with this reason) and the run goes on.
 */
export class AnswerTooLongError extends Error {
  override readonly name = 'AnswerTooLongError';
  constructor() {
    super(
      `stopped reading: the answer passed ${MAX_KEPT_TEXT_CHARS.toLocaleString('en-US')} characters of generated text, the most a request keeps`,
    );
  }
}

/** Raised by engines when no byte arrived for longer than the idle timeout. */
export class IdleTimeoutError extends Error {
  override readonly name = 'IdleTimeoutError';
  readonly code = IDLE_TIMEOUT_CODE;
  constructor(idleMs: number) {
    super(`no data for ${idleMs} ms (idle timeout)`);
  }
}

/** The server closed the connection before the answer was complete (seen by the closed-loop engine). */
export class ConnectionClosedError extends Error {
  override readonly name = 'ConnectionClosedError';
  readonly code = CONNECTION_CLOSED_CODE;
  constructor() {
    super('the server closed the connection before the answer was complete');
  }
}

function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

/**
 * `responseStarted`: headers had arrived, so a broken connection cut the answer short. `idleTimeoutMs`: the
 * engine's idle limit, which undici enforces as its headers and body timeouts; they are reported as ours.
 */
export function failureFromError(
  error: unknown,
  responseStarted: boolean,
  idleTimeoutMs?: number,
): FailureKind {
  const failure = networkFailure(error, responseStarted);
  if (
    idleTimeoutMs !== undefined &&
    (failure.kind === 'headers_timeout' || failure.kind === 'idle_timeout')
  ) {
    return { outcome: failure.outcome, message: new IdleTimeoutError(idleTimeoutMs).message };
  }
  const own = error instanceof RunAbortedError || error instanceof IdleTimeoutError;
  const message =
    own || failure.code === undefined ? messageOf(error) : `${failure.code}: ${messageOf(error)}`;
  return { outcome: failure.outcome, message };
}
