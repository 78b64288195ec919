// Records plugin: the records file (one JSON line per finished request, written by the sink the assembly built)
// is flushed and closed when the gateway closes.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { GatewayContext } from '../src/gateway/context.js';

export interface RecordsPluginOptions {
  readonly context: GatewayContext;
}

async function recordsPlugin(fastify: FastifyInstance, options: RecordsPluginOptions): Promise<void> {
  const writer = options.context.records;
  if (writer === null) return;
  fastify.addHook('onClose', async () => {
    await writer.close();
  });
}

export default fp(recordsPlugin, { name: 'tokenmeter-records', fastify: '5.x' });
