// A listener of its own for the span receiver, for `tokenmeter bench --span-receiver-port` (the gateway's
// receiver is a route of its metrics port instead): a bare node:http server that answers POST /v1/traces and
// nothing else, for the length of a run.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type SpanReceiver, TRACES_PATH } from './span-receiver.js';

export interface ReceiverListener {
  readonly address: AddressInfo;
  close(): Promise<void>;
}

export async function startReceiverListener(
  host: string,
  port: number,
  receiver: SpanReceiver,
): Promise<ReceiverListener> {
  const server: Server = createServer((request, response) => {
    if (request.url?.split('?')[0] === TRACES_PATH) {
      receiver.handle(request, response);
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
    response.end(`this port takes OTLP/HTTP trace exports at POST ${TRACES_PATH} only\n`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    address: server.address() as AddressInfo,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Exporters keep connections alive between batches: they must not hold the run's end open.
        server.closeAllConnections();
      }),
  };
}
