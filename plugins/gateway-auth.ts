// Gateway-key plugin: when gateway keys are configured, API requests must present one, as
// `Authorization: Bearer <key>` or `x-api-key: <key>`. Health and metrics endpoints stay open for probes.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { GatewayContext } from '../src/gateway/context.js';
import { GatewayError } from '../src/gateway/errors.js';
import { matchesGatewayKey } from '../src/gateway/gateway-keys.js';
import { bearerToken } from '../src/shared/bearer-token.js';

export interface GatewayAuthOptions {
  readonly context: GatewayContext;
}

const HOW = "send it as 'Authorization: Bearer <key>' or 'x-api-key: <key>'";

/** Keys the client presented: `x-api-key` and/or a Bearer token (either one may be the gateway key). */
function presentedKeys(authorization: string | undefined, apiKey: string | string[] | undefined): string[] {
  const keys: string[] = [];
  if (typeof apiKey === 'string' && apiKey !== '') keys.push(apiKey);
  const bearer = bearerToken(authorization);
  if (bearer !== undefined) keys.push(bearer);
  return keys;
}

async function gatewayAuthPlugin(fastify: FastifyInstance, options: GatewayAuthOptions): Promise<void> {
  const keys = options.context.config.gatewayKeys;
  if (keys.length === 0) return;
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (request.measurement.ownEndpoint) return done();
    const presented = presentedKeys(request.headers.authorization, request.headers['x-api-key']);
    if (presented.length === 0) {
      return done(new GatewayError('missing_gateway_key', `this gateway requires a gateway key: ${HOW}`));
    }
    if (!presented.some((key) => matchesGatewayKey(key, keys))) {
      return done(
        new GatewayError('invalid_gateway_key', `the gateway key is not valid: check it, and ${HOW}`),
      );
    }
    done();
  });
}

export default fp(gatewayAuthPlugin, {
  name: 'tokenmeter-gateway-auth',
  fastify: '5.x',
  dependencies: ['tokenmeter-measurement'],
});
