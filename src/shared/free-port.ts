// A loopback port nothing listens on right now, for a listener that another process must be told about before
// it starts (the demo's simulator exports its spans to the load generator's receiver, which starts later). Bound
// and released at once, so another process could take it in between: only for loopback, only where a failed
// bind is reported, never for a service.
import { createServer } from 'node:net';

export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no loopback port was given');
  return address.port;
}
