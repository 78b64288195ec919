// The one classifier of failures on the wire, for the gateway, the load generator and the doctor: an error from
// undici or Node (its code, or the code of an error in its `cause` chain) and whether the response had started
// become a kind, and each kind an outcome. Every part words its own message from the kind.
import type { Outcome } from './outcome.js';

export type NetworkFailureKind =
  | 'refused'
  | 'dns'
  | 'tls'
  | 'connect_timeout'
  | 'headers_timeout'
  | 'idle_timeout'
  | 'total_timeout'
  | 'reset'
  | 'aborted'
  | 'other';

/** The outcomes a failure on the wire can have. */
export type FailureOutcome = Extract<
  Outcome,
  'truncated' | 'upstream_unreachable' | 'upstream_timeout' | 'client_abort'
>;

export interface NetworkFailure {
  readonly kind: NetworkFailureKind;
  /** The code the kind was read from, when the error had one. */
  readonly code: string | undefined;
  readonly outcome: FailureOutcome;
}

/** Codes tokenmeter's own errors carry, so they sort like undici's. */
export const IDLE_TIMEOUT_CODE = 'TOKENMETER_IDLE_TIMEOUT';
export const TOTAL_TIMEOUT_CODE = 'TOKENMETER_TOTAL_TIMEOUT';
export const ABORTED_CODE = 'TOKENMETER_ABORTED';
export const CONNECTION_CLOSED_CODE = 'TOKENMETER_CONNECTION_CLOSED';

const KIND_OF_CODE: ReadonlyMap<string, NetworkFailureKind> = new Map<string, NetworkFailureKind>([
  ['ECONNREFUSED', 'refused'],
  ['EHOSTUNREACH', 'refused'],
  ['ENETUNREACH', 'refused'],
  ['EADDRNOTAVAIL', 'refused'],
  ['ENOTFOUND', 'dns'],
  ['EAI_AGAIN', 'dns'],
  ['UND_ERR_CONNECT_TIMEOUT', 'connect_timeout'],
  ['ETIMEDOUT', 'connect_timeout'],
  ['UND_ERR_HEADERS_TIMEOUT', 'headers_timeout'],
  ['UND_ERR_BODY_TIMEOUT', 'idle_timeout'],
  [IDLE_TIMEOUT_CODE, 'idle_timeout'],
  [TOTAL_TIMEOUT_CODE, 'total_timeout'],
  ['ECONNRESET', 'reset'],
  ['EPIPE', 'reset'],
  ['UND_ERR_SOCKET', 'reset'],
  ['UND_ERR_CLOSED', 'reset'],
  [CONNECTION_CLOSED_CODE, 'reset'],
  ['UND_ERR_ABORTED', 'aborted'],
  ['ABORT_ERR', 'aborted'],
  [ABORTED_CODE, 'aborted'],
]);

// Node's own TLS codes (ERR_TLS_*, ERR_SSL_*) and OpenSSL's verification codes (CERT_HAS_EXPIRED,
// DEPTH_ZERO_SELF_SIGNED_CERT, UNABLE_TO_VERIFY_LEAF_SIGNATURE, HOSTNAME_MISMATCH...).
const TLS_CODE = /^ERR_TLS_|^ERR_SSL_|CERT|SELF_SIGNED|^UNABLE_TO_|HOSTNAME_MISMATCH/;

/** The error's code, or the first code in its `cause` chain (undici wraps socket errors). */
export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const cause = (current as { cause?: unknown }).cause;
    if (cause === current) return undefined;
    current = cause;
  }
  return undefined;
}

export function failureKindOfCode(code: string | undefined): NetworkFailureKind {
  if (code === undefined) return 'other';
  return KIND_OF_CODE.get(code) ?? (TLS_CODE.test(code) ? 'tls' : 'other');
}

/**
 * The outcome of a failure of this kind. `responseStarted`: the response's headers had arrived, so a broken
 * connection cut an answer short (truncated) rather than preventing one (unreachable).
 */
export function outcomeOfFailure(kind: NetworkFailureKind, responseStarted: boolean): FailureOutcome {
  switch (kind) {
    case 'connect_timeout':
    case 'headers_timeout':
    case 'idle_timeout':
    case 'total_timeout':
      return 'upstream_timeout';
    case 'aborted':
      return 'client_abort';
    case 'refused':
    case 'dns':
    case 'tls':
      return 'upstream_unreachable';
    case 'reset':
    case 'other':
      return responseStarted ? 'truncated' : 'upstream_unreachable';
  }
}

export function networkFailure(error: unknown, responseStarted: boolean): NetworkFailure {
  const code = errorCode(error);
  const kind = failureKindOfCode(code);
  return { kind, code, outcome: outcomeOfFailure(kind, responseStarted) };
}
