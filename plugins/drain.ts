// Drain plugin: what the gateway does with its clients' connections once it closes (src/gateway/shutdown.ts
// starts it after shutdownDelayMs). No connection is kept alive past its response: a response not yet started
// carries `Connection: close`, one already under way (its headers said keep-alive) has its connection closed
// when it ends, so the process exits when the last stream ends rather than when clients' idle timers run out. A
// request that still arrives on a kept-alive connection gets the gateway's own 503, with Retry-After, and a record.
import type { Server, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { GatewayError } from '../src/gateway/errors.js';
import '../src/gateway/fastify-types.js';
import { sendGatewayError } from '../src/gateway/send-error.js';

/** Seconds a client refused while the gateway drains should wait: long enough for its load balancer to move on. */
export const DRAIN_RETRY_AFTER_S = 1;

function closeIdleConnections(server: Server): void {
  server.closeIdleConnections();
}

async function drainPlugin(fastify: FastifyInstance): Promise<void> {
  let draining = false;
  /** Responses in progress, so that those not yet started when the drain begins can say `Connection: close`. */
  const open = new Set<ServerResponse>();
  const server = fastify.server;
  function responseClosed(this: ServerResponse): void {
    open.delete(this);
    // Closing the server reaps only the connections idle at that moment; one whose response was already under
    // way becomes idle when it ends (on the next turn), and its client would keep it open.
    if (draining) setImmediate(closeIdleConnections, server);
  }

  fastify.addHook('onRequest', (request, reply, done) => {
    if (draining) {
      reply.header('connection', 'close');
      if (!request.measurement.ownEndpoint) {
        reply.header('retry-after', String(DRAIN_RETRY_AFTER_S));
        sendGatewayError(
          request,
          reply,
          new GatewayError(
            'shutting_down',
            'the gateway is shutting down: retry, another instance will answer',
          ),
        );
        return;
      }
    }
    open.add(reply.raw);
    reply.raw.on('close', responseClosed);
    done();
  });

  // Runs when the gateway closes, before it stops listening (Fastify's own keep-alive handling only covers
  // requests that arrive after this).
  fastify.addHook('preClose', (done) => {
    draining = true;
    for (const response of open) {
      if (!response.headersSent) response.setHeader('connection', 'close');
    }
    done();
  });
}

export default fp(drainPlugin, {
  name: 'tokenmeter-drain',
  fastify: '5.x',
  dependencies: ['tokenmeter-measurement'],
});
