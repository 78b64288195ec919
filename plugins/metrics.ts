// Metrics plugin: `GET /metrics` in Prometheus text format, from the gateway's own registry.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { GatewayContext } from '../src/gateway/context.js';
import { GatewayMetrics } from '../src/gateway/gateway-metrics.js';

export interface MetricsPluginOptions {
  readonly context: GatewayContext;
}

async function metricsPlugin(fastify: FastifyInstance, options: MetricsPluginOptions): Promise<void> {
  const metrics = new GatewayMetrics(options.context);
  fastify.get('/metrics', async (_request, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}

export default fp(metricsPlugin, { name: 'tokenmeter-metrics', fastify: '5.x' });
