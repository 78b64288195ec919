// The leanest Node proxy we know how to write, as the baseline the gateway's cost is judged against: a `node:http`
// server and one undici Agent driven through `dispatch()` with a handler on undici 7's handler API. The request
// body is read whole, then dispatched; each response chunk is written to the client as it arrives, with the
// upstream paused while the client's socket is full. No measurement: the optional tap (used by the burst fidelity
// test) is called with the request and the bytes, and the default tap does nothing.
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, type Dispatcher } from 'undici';

/** Called before the upstream's headers or a body chunk are written to the client. */
export interface ProxyTap {
  onResponseStart(req: IncomingMessage): void;
  onResponseData(req: IncomingMessage, chunk: Buffer): void;
}

export interface LeanestProxyOptions {
  /** Connections per upstream origin; 0 = unlimited (the default). */
  readonly connections?: number;
  readonly tap?: ProxyTap;
}

export interface LeanestProxy {
  readonly server: Server;
  readonly port: number;
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  close(): Promise<void>;
}

const NO_TAP: ProxyTap = { onResponseStart() {}, onResponseData() {} };
// RFC 9110 7.6.1: connection-specific fields are not forwarded. `host` is the upstream's, set by undici.
const REQUEST_DROP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'host']);
const RESPONSE_DROP = new Set(['connection', 'keep-alive', 'transfer-encoding']);

function without(headers: IncomingHttpHeaders, drop: ReadonlySet<string>): IncomingHttpHeaders {
  const kept: IncomingHttpHeaders = {};
  for (const name in headers) if (!drop.has(name)) kept[name] = headers[name];
  return kept;
}

/** Dispatches one request whose body was read (`body`) and writes the answer to `res` as it arrives. */
export function forwardOn(
  agent: Dispatcher,
  origin: string,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer | null,
  tap: ProxyTap = NO_TAP,
): void {
  const handler: Dispatcher.DispatchHandler = {
    onRequestStart(controller) {
      res.once('close', () => {
        if (!res.writableFinished) controller.abort(new Error('client closed'));
      });
    },
    onResponseStart(_controller, statusCode, headers) {
      tap.onResponseStart(req);
      res.writeHead(statusCode, without(headers, RESPONSE_DROP));
      res.flushHeaders();
    },
    onResponseData(controller, chunk) {
      tap.onResponseData(req, chunk);
      if (!res.write(chunk) && !controller.paused) {
        controller.pause();
        res.once('drain', () => controller.resume());
      }
    },
    onResponseEnd() {
      res.end();
    },
    onResponseError(_controller, err) {
      if (res.headersSent) res.destroy(err);
      else res.writeHead(502).end();
    },
  };
  agent.dispatch(
    {
      origin,
      path: req.url ?? '/',
      method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
      headers: without(req.headers, REQUEST_DROP),
      body,
    },
    handler,
  );
}

function forward(
  agent: Agent,
  origin: string,
  tap: ProxyTap,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () =>
    forwardOn(agent, origin, req, res, chunks.length === 0 ? null : Buffer.concat(chunks), tap),
  );
}

/** The leanest proxy's upstream client: one undici Agent, kept-alive connections. */
export function leanestAgent(connections = 0): Agent {
  return new Agent({ pipelining: 1, keepAliveTimeout: 60_000, connections: connections || null });
}

/** Listens on 127.0.0.1, port 0 unless given, forwarding every request to `upstreamOrigin`. */
export async function startLeanestProxy(
  upstreamOrigin: string,
  options: LeanestProxyOptions & { readonly port?: number } = {},
): Promise<LeanestProxy> {
  const origin = new URL(upstreamOrigin).origin;
  const agent = leanestAgent(options.connections);
  const tap = options.tap ?? NO_TAP;
  const server = createServer((req, res) => forward(agent, origin, tap, req, res));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await agent.close();
    },
  };
}
