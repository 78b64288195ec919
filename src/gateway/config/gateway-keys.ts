// Gateway keys: what clients must present when the gateway is not open. Stored as SHA-256 digests (a plain key
// in the config is hashed at start) so comparison is constant-time over equal-length digests and the plain key
// is never kept in memory longer than start-up. The check every API request passes is here too
// (gatewayKeyRefusal, at the end), with the one Bearer reader the gateway's
// other keyed endpoints use (bearerToken).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { UserFacingError } from '../../shared/user-facing-error.js';
import { GatewayError } from '../request-path/errors.js';

export interface GatewayKey {
  readonly digest: Buffer;
}

export function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

export function parseGatewayKey(raw: string, field: string): GatewayKey {
  const hashed = /^sha256:([0-9a-f]*)$/i.exec(raw);
  if (!hashed) return { digest: sha256(raw) };
  const hex = hashed[1] ?? '';
  if (hex.length !== 64) {
    throw new UserFacingError(
      `${field}: a hashed key is sha256: followed by 64 hex digits (got ${hex.length})`,
    );
  }
  return { digest: Buffer.from(hex, 'hex') };
}

/** Constant-time over every configured key: the time taken does not reveal which key, or how much, matched. */
export function matchesGatewayKey(presented: string, keys: readonly GatewayKey[]): boolean {
  const digest = sha256(presented);
  let matched = false;
  for (const key of keys) matched = timingSafeEqual(digest, key.digest) || matched;
  return matched;
}

// The gateway key check: when gateway keys are configured, API requests must present one, as
// `Authorization: Bearer <key>` or `x-api-key: <key>`. The gateway's own endpoints (health, metrics) stay open
// for probes; they never reach this check.
const HOW = "send it as 'Authorization: Bearer <key>' or 'x-api-key: <key>'";

/** Keys the client presented: `x-api-key` and/or a Bearer token (either one may be the gateway key). */
function presentedKeys(authorization: string | undefined, apiKey: string | string[] | undefined): string[] {
  const keys: string[] = [];
  if (typeof apiKey === 'string' && apiKey !== '') keys.push(apiKey);
  const bearer = bearerToken(authorization);
  if (bearer !== undefined) keys.push(bearer);
  return keys;
}

/** Why the request may not pass (its answer), or null when it may: no keys configured, or one presented. */
export function gatewayKeyRefusal(
  headers: IncomingHttpHeaders,
  keys: readonly GatewayKey[],
): GatewayError | null {
  if (keys.length === 0) return null;
  const presented = presentedKeys(headers.authorization, headers['x-api-key']);
  if (presented.length === 0) {
    return new GatewayError('missing_gateway_key', `this gateway requires a gateway key: ${HOW}`);
  }
  if (!presented.some((key) => matchesGatewayKey(key, keys))) {
    return new GatewayError('invalid_gateway_key', `the gateway key is not valid: check it, and ${HOW}`);
  }
  return null;
}

// The token of an `Authorization: Bearer <token>` header, read one way wherever the gateway takes one: a client's
// gateway key, the metrics page's token, a server's span export. The scheme is case-insensitive (RFC 7235).
const BEARER = /^Bearer\s+(.+)$/i;

/** The token an Authorization header presents, or undefined when it is absent or not a Bearer credential. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  return BEARER.exec(authorization.trim())?.[1];
}
