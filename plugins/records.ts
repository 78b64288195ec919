// Records plugin: one JSON line per finished request into the configured file, flushed when the gateway closes.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { GatewayContext } from '../src/gateway/context.js';
import { RecordsWriter } from '../src/gateway/records-writer.js';

export interface RecordsPluginOptions {
  readonly context: GatewayContext;
}

async function recordsPlugin(fastify: FastifyInstance, options: RecordsPluginOptions): Promise<void> {
  const file = options.context.config.recordsFile;
  if (file === null) return;
  let warned = false;
  const writer = new RecordsWriter(file, (error) => {
    if (!warned) {
      warned = true;
      fastify.log.error(
        { err: error, file },
        `cannot write request records to ${file}: traffic continues, records are lost`,
      );
    }
  });
  options.context.recordListeners.push((record) => writer.add(record));
  options.context.records = writer;
  fastify.addHook('onClose', async () => {
    await writer.close();
  });
}

export default fp(recordsPlugin, { name: 'tokenmeter-records', fastify: '5.x' });
