// The one table of errors the gateway itself originates. Every entry answers in OpenAI's error format
// (`{"error": {"message", "type", "code"}}`) so SDKs surface the message, and every message says what happened
// and what to do. Library messages and stacks never reach the client; they stay in the log as the cause.
import { UNDECODABLE_ENCODING_CODE } from '../../measure/body-decoding.js';
import { errorCode, networkFailure } from '../../measure/network-failure.js';
import type { Outcome } from '../../measure/outcome.js';
import { openAIError } from '../../shared/openai-error.js';

interface ErrorSpec {
  readonly status: number;
  readonly type: string;
  readonly outcome: Outcome;
}

export const GATEWAY_ERRORS = {
  path_not_found: { status: 404, type: 'invalid_request_error', outcome: 'rejected' },
  path_traversal: { status: 400, type: 'invalid_request_error', outcome: 'rejected' },
  model_not_found: { status: 404, type: 'invalid_request_error', outcome: 'rejected' },
  invalid_request_body: { status: 400, type: 'invalid_request_error', outcome: 'rejected' },
  request_too_deep: { status: 400, type: 'invalid_request_error', outcome: 'rejected' },
  method_not_allowed: { status: 405, type: 'invalid_request_error', outcome: 'rejected' },
  request_too_large: { status: 413, type: 'invalid_request_error', outcome: 'rejected' },
  missing_gateway_key: { status: 401, type: 'authentication_error', outcome: 'rejected' },
  invalid_gateway_key: { status: 401, type: 'authentication_error', outcome: 'rejected' },
  upstream_refused: { status: 502, type: 'upstream_error', outcome: 'upstream_unreachable' },
  upstream_reset: { status: 502, type: 'upstream_error', outcome: 'upstream_unreachable' },
  upstream_dns: { status: 502, type: 'upstream_error', outcome: 'upstream_unreachable' },
  upstream_tls: { status: 502, type: 'upstream_error', outcome: 'upstream_unreachable' },
  upstream_bad_response: { status: 502, type: 'upstream_error', outcome: 'upstream_unreachable' },
  upstream_connect_timeout: { status: 504, type: 'upstream_error', outcome: 'upstream_timeout' },
  upstream_headers_timeout: { status: 504, type: 'upstream_error', outcome: 'upstream_timeout' },
  upstream_total_timeout: { status: 504, type: 'upstream_error', outcome: 'upstream_timeout' },
  shutting_down: { status: 503, type: 'server_error', outcome: 'rejected' },
  internal_error: { status: 500, type: 'server_error', outcome: 'rejected' },
} as const satisfies Record<string, ErrorSpec>;

export type GatewayErrorCode = keyof typeof GATEWAY_ERRORS;

/** A gateway-originated error: the code picks status, type and outcome; the message is for the user. */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly status: number;
  readonly outcome: Outcome;
  constructor(
    readonly code: GatewayErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.status = GATEWAY_ERRORS[code].status;
    this.outcome = GATEWAY_ERRORS[code].outcome;
  }

  toBody(): string {
    return JSON.stringify(openAIError(this.message, GATEWAY_ERRORS[this.code].type, this.code));
  }
}

interface UpstreamLike {
  readonly name: string;
  readonly base: { readonly display: string };
}

/**
 * Maps a failure of the upstream request before any answer (src/measure/network-failure.ts's kinds) to the
 * client-facing error. A total timeout is the gateway's own abort, carrying TOTAL_TIMEOUT_CODE.
 */
export function upstreamFailure(upstream: UpstreamLike, cause: unknown): GatewayError {
  const where = `upstream '${upstream.name}' at ${upstream.base.display}`;
  const { kind, code } = networkFailure(cause, false);
  // undici's name for a response it refuses to parse on, such as a 100 Continue it did not ask for (it sends no
  // Expect): the connection is destroyed, but the upstream did answer, not hang up.
  if (kind === 'reset' && cause instanceof Error && cause.message === 'bad response') {
    return new GatewayError(
      'upstream_bad_response',
      `${where} answered with a response the gateway cannot use (such as a 100 Continue it did not ask for); check its logs`,
      { cause },
    );
  }
  // An answer in an encoding the gateway cannot decode (src/measure/body-decoding.ts): never passed on.
  if (errorCode(cause) === UNDECODABLE_ENCODING_CODE) {
    const why = cause instanceof Error ? cause.message : 'answered in an encoding the gateway cannot decode';
    return new GatewayError('upstream_bad_response', `${where} ${why}; have it answer uncompressed`, {
      cause,
    });
  }
  switch (kind) {
    case 'refused':
      return new GatewayError('upstream_refused', `${where} refused the connection: is it running?`, {
        cause,
      });
    case 'dns':
      return new GatewayError('upstream_dns', `${where}: its host name does not resolve; check the URL`, {
        cause,
      });
    case 'connect_timeout':
      return new GatewayError(
        'upstream_connect_timeout',
        `${where} did not accept a connection in time: is the host reachable?`,
        { cause },
      );
    case 'headers_timeout':
    case 'idle_timeout':
      return new GatewayError(
        'upstream_headers_timeout',
        `${where} did not answer in time: it may be overloaded; retry later or raise timeouts.headersMs`,
        { cause },
      );
    case 'total_timeout':
      return new GatewayError(
        'upstream_total_timeout',
        `${where} did not finish within timeouts.totalMs; raise it for long generations`,
        { cause },
      );
    case 'reset':
      return new GatewayError(
        'upstream_reset',
        `${where} closed the connection before answering; check its logs`,
        {
          cause,
        },
      );
    case 'tls':
      return new GatewayError(
        'upstream_tls',
        `${where}: its TLS certificate could not be verified (${code}); set upstreams[].caFile for a private CA`,
        { cause },
      );
    default:
      return new GatewayError(
        'upstream_bad_response',
        `${where} failed: the request could not be completed; check its logs`,
        { cause },
      );
  }
}
