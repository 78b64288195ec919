// Request id plugin: every response carries the request's id in `x-request-id` (the client's own when it sent a
// usable one, see requestIdFrom), so a client can find the record and log line of any request.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

const USABLE_ID = /^[\w.:@/+=-]{1,128}$/;

/** Fastify's genReqId: the client's `x-request-id` when it is short and plain (no log injection), else a UUID. */
export function requestIdFrom(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && USABLE_ID.test(given) ? given : randomUUID();
}

async function requestIdPlugin(fastify: FastifyInstance): Promise<void> {
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
}

export default fp(requestIdPlugin, { name: 'tokenmeter-request-id', fastify: '5.x' });
