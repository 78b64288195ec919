// Records plugin: the records file (one JSON line per finished request, written by the sink the assembly built)
// is flushed and closed when the gateway closes. With the span receiver (spanReceiver), closing first releases
// every record still waiting for its span, so none is lost (the API path makes each request known to the join
// when it arrives: src/gateway/api-path.ts).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { GatewayContext } from '../src/gateway/context.js';

export interface RecordsPluginOptions {
  readonly context: GatewayContext;
}

async function recordsPlugin(fastify: FastifyInstance, options: RecordsPluginOptions): Promise<void> {
  const { records: writer, spanReceiving } = options.context;
  // Runs after the metrics plugin's onClose (registered later, so closed first): the receiver has stopped.
  fastify.addHook('onClose', async () => {
    await spanReceiving?.close();
    await writer?.close();
  });
}

export default fp(recordsPlugin, { name: 'tokenmeter-records', fastify: '5.x' });
