// Gateway-key plugin: when gateway keys are configured, API requests must present one, as
// `Authorization: Bearer <key>` or `x-api-key: <key>`. Health and metrics endpoints stay open for probes.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { GatewayContext } from '../src/gateway/context.js';
import { GatewayError } from '../src/gateway/errors.js';
import { matchesGatewayKey } from '../src/gateway/gateway-keys.js';

export interface GatewayAuthOptions {
  readonly context: GatewayContext;
}

const HOW = "send it as 'Authorization: Bearer <key>' or 'x-api-key: <key>'";

function presentedKey(authorization: string | undefined, apiKey: string | string[] | undefined): string | undefined {
  if (typeof apiKey === 'string' && apiKey !== '') return apiKey;
  if (authorization === undefined) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
  return match?.[1];
}

async function gatewayAuthPlugin(fastify: FastifyInstance, options: GatewayAuthOptions): Promise<void> {
  const keys = options.context.config.gatewayKeys;
  if (keys.length === 0) return;
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (request.measurement.ownEndpoint) return done();
    const key = presentedKey(request.headers.authorization, request.headers['x-api-key']);
    if (key === undefined) {
      return done(new GatewayError('missing_gateway_key', `this gateway requires a gateway key: ${HOW}`));
    }
    if (!matchesGatewayKey(key, keys)) {
      return done(new GatewayError('invalid_gateway_key', `the gateway key is not valid: check it, and ${HOW}`));
    }
    done();
  });
}

export default fp(gatewayAuthPlugin, {
  name: 'tokenmeter-gateway-auth',
  fastify: '5.x',
  dependencies: ['tokenmeter-measurement'],
});
