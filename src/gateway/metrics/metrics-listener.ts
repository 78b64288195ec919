// The separate metrics port (metrics.port): a bare node:http server that answers GET /metrics, and the routes the
// caller adds (the span receiver's POST /v1/traces, spanReceiver), nothing else. Bare rather than a second Fastify
// instance because it serves one fixed page: nothing to route, parse or validate, and a scrape must never queue
// behind the API's hooks. It is bounded like the API port (clientLimits): the same header, request and keep-alive
// timeouts and the same connection cap, so a client that can reach it cannot hold more of it than of the API.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricsPage } from './metrics-page.js';

export type RenderMetrics = (authorization: string | undefined) => Promise<MetricsPage>;
/** Another route of the metrics port, by exact path: it answers every method itself. */
export type MetricsPortRoute = (request: IncomingMessage, response: ServerResponse) => void;

/** The API port's client limits (clientLimits), applied to this port too. */
export interface ListenerLimits {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxConnections: number;
}

export interface MetricsListener {
  readonly address: AddressInfo;
  /** For watching its refused connections ('drop'). */
  readonly server: Server;
  close(): Promise<void>;
}

export async function startMetricsListener(
  host: string,
  port: number,
  render: RenderMetrics,
  onRenderError: (error: unknown) => void,
  limits: ListenerLimits,
  routes: ReadonlyMap<string, MetricsPortRoute> = new Map(),
): Promise<MetricsListener> {
  const options = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node checks for timed-out connections this often (30 s by default, far longer than the bounds).
    connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
  };
  const server = createServer(options, (request, response) => {
    const path = request.url?.split('?')[0];
    const route = routes.get(path ?? '');
    if (route !== undefined) {
      route(request, response);
      return;
    }
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('this port serves GET /metrics only\n');
      return;
    }
    render(request.headers.authorization).then(
      (page) => {
        response.writeHead(page.status, page.headers);
        response.end(request.method === 'HEAD' ? undefined : page.body);
      },
      (error: unknown) => {
        onRenderError(error);
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('the metrics could not be collected; see the gateway log\n');
      },
    );
  });
  server.maxConnections = limits.maxConnections;
  await listen(server, host, port);
  return {
    server,
    address: server.address() as AddressInfo,
    close: () => close(server),
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Scrapers keep connections alive between scrapes; they must not hold shutdown open.
    server.closeAllConnections();
  });
}
