// Metrics plugin: `GET /metrics` in Prometheus text format, from the gateway's own registry. With metrics.tokenEnv
// the scraper must send that token as a bearer token (Prometheus: `authorization: { credentials_file: ... }`),
// for deployments whose API port is public; a wrong or missing token gets 401 and nothing about the traffic.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { GatewayContext } from '../src/gateway/context.js';
import { matchesGatewayKey } from '../src/gateway/gateway-keys.js';
import { GatewayMetrics } from '../src/gateway/gateway-metrics.js';

export interface MetricsPluginOptions {
  readonly context: GatewayContext;
}

async function metricsPlugin(fastify: FastifyInstance, options: MetricsPluginOptions): Promise<void> {
  const metrics = new GatewayMetrics(options.context);
  const token = options.context.config.metricsToken;
  fastify.get('/metrics', async (request, reply) => {
    if (token !== null) {
      const presented = /^Bearer\s+(.+)$/i.exec(request.headers.authorization?.trim() ?? '')?.[1];
      if (presented === undefined || !matchesGatewayKey(presented, [token])) {
        reply.code(401).header('www-authenticate', 'Bearer realm="tokenmeter metrics"');
        return 'send the metrics token (metrics.tokenEnv) as "Authorization: Bearer <token>"\n';
      }
    }
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}

export default fp(metricsPlugin, { name: 'tokenmeter-metrics', fastify: '5.x' });
