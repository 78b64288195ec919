// Metrics plugin: `GET /metrics` in Prometheus text format, from the gateway's own registry, on the API port, or
// with metrics.port on a port of its own (the API port then has no /metrics). With metrics.tokenEnv the scraper
// must send that token as a bearer token; see src/gateway/metrics/metrics-page.ts. The metrics port also carries
// the span receiver's POST /v1/traces when spanReceiver is set (which requires metrics.port).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { GatewayContext } from '../src/gateway/context.js';
import { type MetricsListener, startMetricsListener } from '../src/gateway/metrics/metrics-listener.js';
import { type MetricsSource, metricsPage } from '../src/gateway/metrics/metrics-page.js';
import { watchRefusedConnections } from '../src/gateway/serve/client-errors.js';
import { TRACES_PATH } from '../src/tracing/receiver/span-receiver.js';

export interface MetricsPluginOptions {
  readonly context: GatewayContext;
  /** What /metrics shows instead of this process's registry (a cluster worker's: the whole gateway's). */
  readonly source?: MetricsSource;
}

async function metricsPlugin(fastify: FastifyInstance, options: MetricsPluginOptions): Promise<void> {
  const { context } = options;
  const source = options.source ?? context.metrics.registry;
  const render = (authorization: string | undefined) =>
    metricsPage(source, context.config.metricsToken, authorization);
  const own = context.config.metricsListen;
  if (own === null) {
    fastify.get('/metrics', async (request, reply) => {
      const page = await render(request.headers.authorization);
      reply.code(page.status).headers(page.headers);
      return page.body;
    });
    return;
  }
  // onReady, not onListen: a metrics port that cannot be bound must fail the start, and onListen only logs.
  let listener: MetricsListener | null = null;
  fastify.addHook('onReady', async () => {
    const receiver = context.spanReceiving?.receiver;
    const routes = new Map(receiver === undefined ? [] : [[TRACES_PATH, receiver.handle]]);
    const started = await startMetricsListener(
      own.host,
      own.port,
      render,
      (error) => {
        fastify.log.error({ err: error }, 'collecting /metrics failed');
      },
      context.config.clientLimits,
      routes,
    );
    const limit = context.config.clientLimits.maxConnections;
    watchRefusedConnections(started.server, limit, context.metrics, fastify.log);
    listener = started;
    context.state.metricsAddress = started.address;
  });
  fastify.addHook('onClose', async () => {
    await listener?.close();
  });
}

export default fp(metricsPlugin, { name: 'tokenmeter-metrics', fastify: '5.x' });
