// Sorts a wire-level failure into the record's outcomes, from Node's and undici's error codes, so the report can
// say "the server refused the connection" rather than "fetch failed".

import type { RequestOutcome } from '../record.js';

export interface FailureKind {
  readonly outcome: Exclude<RequestOutcome, 'ok' | 'http_error' | 'upstream_error_body'>;
  readonly message: string;
}

/** Raised by engines when the run is stopped (Ctrl-C, --smoke's first failure). */
export class RunAbortedError extends Error {
  override readonly name = 'RunAbortedError';
  constructor() {
    super('run stopped before this request finished');
  }
}

/** Raised by engines when no byte arrived for longer than the idle timeout. */
export class IdleTimeoutError extends Error {
  override readonly name = 'IdleTimeoutError';
  constructor(idleMs: number) {
    super(`no data for ${idleMs} ms (idle timeout)`);
  }
}

/** The server closed the connection before the answer was complete (seen by the closed-loop engine). */
export class ConnectionClosedError extends Error {
  override readonly name = 'ConnectionClosedError';
  constructor() {
    super('the server closed the connection before the answer was complete');
  }
}

const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const direct = (error as { code?: unknown }).code;
  if (typeof direct === 'string') return direct;
  // undici wraps socket errors: the code is on the cause.
  return codeOf((error as { cause?: unknown }).cause);
}

function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

/** `responseStarted`: headers had arrived, so a broken connection cut the answer short. */
export function failureFromError(error: unknown, responseStarted: boolean): FailureKind {
  if (error instanceof RunAbortedError) return { outcome: 'aborted', message: error.message };
  if (error instanceof IdleTimeoutError) return { outcome: 'timeout', message: error.message };
  const code = codeOf(error);
  const message = code === undefined ? messageOf(error) : `${code}: ${messageOf(error)}`;
  if (code !== undefined && TIMEOUT_CODES.has(code)) return { outcome: 'timeout', message };
  if (!responseStarted && code !== undefined && CONNECT_CODES.has(code))
    return { outcome: 'connect_error', message };
  return { outcome: 'truncated', message };
}
