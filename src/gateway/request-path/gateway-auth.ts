// The gateway key check: when gateway keys are configured, API requests must present one, as
// `Authorization: Bearer <key>` or `x-api-key: <key>`. The gateway's own endpoints (health, metrics) stay open
// for probes; they never reach this check.
import type { IncomingHttpHeaders } from 'node:http';
import { bearerToken } from '../../shared/bearer-token.js';
import { type GatewayKey, matchesGatewayKey } from '../config/gateway-keys.js';
import { GatewayError } from './errors.js';

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
