// Health plugin: `/healthz` answers while the process serves; `/readyz` checks that every upstream accepts a
// TCP connection (no request is sent, so no key is spent and no model is woken) and fails during shutdown.
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { GatewayContext } from '../src/gateway/context.js';

export interface HealthPluginOptions {
  readonly context: GatewayContext;
}

const PROBE_TIMEOUT_MS = 2000;

function reachable(origin: string): Promise<boolean> {
  const url = new URL(origin);
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function healthPlugin(fastify: FastifyInstance, options: HealthPluginOptions): Promise<void> {
  const { context } = options;
  fastify.get('/healthz', async () => ({ status: 'ok' }));
  fastify.get('/readyz', async (_request, reply) => {
    const upstreams = await Promise.all(
      context.config.upstreams.map(async (u) => ({
        name: u.name,
        reachable: await reachable(u.base.origin),
      })),
    );
    const ready = !context.state.shuttingDown && upstreams.every((u) => u.reachable);
    reply.code(ready ? 200 : 503);
    return {
      status: ready ? 'ready' : context.state.shuttingDown ? 'shutting_down' : 'upstream_unreachable',
      upstreams,
    };
  });
}

export default fp(healthPlugin, { name: 'tokenmeter-health', fastify: '5.x' });
