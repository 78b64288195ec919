// A streamed chat upstream with known emission times, run as its own process by burst-fidelity.test.ts so that its
// clock and event loop are not the proxies'. Arguments: first-content delay, gap between content chunks (ms) and
// the number of content chunks. Each POST gets its response headers at once, its first content after the delay,
// the other content chunks a gap apart, then a finish chunk and [DONE]. Per x-request-id it keeps when (its own
// performance.now(), just after each write) the headers and the first content were written; GET /stamps answers
// `{ [requestId]: [headersWrittenAt, firstContentWrittenAt] }`. Prints `PORT <n>` once listening and exits when
// its stdin closes, so it never outlives the test.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { chatChunk } from './upstream.js';

const [firstMs = 20, gapMs = 5, contentChunks = 4] = process.argv.slice(2).map(Number);
const stamps: Record<string, [number, number]> = {};
const tail = `${chatChunk({}, 'stop')}data: [DONE]\n\n`;

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stamps') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stamps));
    return;
  }
  req.resume();
  req.on('end', () => {
    const id = String(req.headers['x-request-id']);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const headersAt = performance.now();
    let sent = 0;
    const next = (): void => {
      if (res.destroyed) return;
      res.write(chatChunk({ content: `tok${sent}` }));
      if (sent === 0) stamps[id] = [headersAt, performance.now()];
      sent++;
      if (sent < contentChunks) setTimeout(next, gapMs);
      else res.end(tail);
    };
    setTimeout(next, firstMs);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`PORT ${(server.address() as AddressInfo).port}\n`);
});
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
