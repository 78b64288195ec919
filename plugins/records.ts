// Records plugin: the records file (one JSON line per finished request, written by the sink the assembly built)
// is flushed and closed when the gateway closes. With the span receiver (spanReceiver), closing first releases
// every record still waiting for its span, so none is lost (the API path makes each request known to the join
// when it arrives: src/gateway/request-path/api-path.ts).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { GatewayContext } from '../src/gateway/context.js';
import { lostCount } from '../src/shared/records-writer.js';

export interface RecordsPluginOptions {
  readonly context: GatewayContext;
}

async function recordsPlugin(fastify: FastifyInstance, options: RecordsPluginOptions): Promise<void> {
  const { records: writer, spanReceiving } = options.context;
  // Runs after the metrics plugin's onClose (registered later, so closed first): the receiver has stopped.
  fastify.addHook('onClose', async () => {
    await spanReceiving?.close();
    if (writer === null) return;
    await writer.close(recordsGiveUpMs(options.context));
    const lost = lostCount(writer.stats);
    if (lost > 0) {
      // The metric dies with the process: the closing count is said once, in the log.
      fastify.log.warn(
        {
          recordsWritten: writer.stats.written,
          recordsLost: lost,
          lostBy: writer.stats.lost,
          file: writer.path,
        },
        `records file ${writer.path}: ${lost} records could not be written and are lost (${writer.stats.written} written)${
          writer.writeStuck
            ? '; a file operation on it never returned (a hung mount?): the process ends without waiting for it'
            : ''
        }`,
      );
    }
  });
}

/** The least time the last records get to reach a healthy file, even when the grace period is already over. */
const RECORDS_FLUSH_MS = 1000;

/**
 * How long closing waits for the records file to take the last lines: until the grace period ends (a file that
 * takes nothing, a FIFO nobody reads or a hung mount, must not hold the process past it), or RECORDS_FLUSH_MS;
 * only RECORDS_FLUSH_MS once the connections were cut (a second signal: the operator wants the process gone).
 * What it did not take by then is counted lost.
 */
function recordsGiveUpMs(context: GatewayContext): number {
  const { graceEndsAt, cutReason } = context.state;
  if (cutReason !== null) return RECORDS_FLUSH_MS;
  const left = graceEndsAt === null ? context.config.shutdownGraceMs : graceEndsAt - performance.now();
  return Math.max(RECORDS_FLUSH_MS, left);
}

export default fp(recordsPlugin, { name: 'tokenmeter-records', fastify: '5.x' });
