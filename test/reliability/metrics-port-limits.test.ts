// Fault-matrix rows for clients of the metrics port (metrics.port): it is bounded like the API port, by the same
// clientLimits. An idle kept-alive connection is closed after keepAliveTimeoutMs (not Node's default 5 s, nor
// held for a minute), a client trickling its headers is cut at headersTimeoutMs with a 408, and connections beyond
// maxConnections are refused and counted in tokenmeter_client_connections_refused_total. No row makes an API
// request, so the accounting is the gateway's records staying empty and each refusal counted once.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { sendShortChatStream, startUpstream, type TestUpstream } from '../gateway/helpers/upstream.js';
import { withDeadline } from '../helpers/deadline.js';

const HEADERS_TIMEOUT_MS = 300;
const KEEP_ALIVE_TIMEOUT_MS = 1000;
const MAX_CONNECTIONS = 3;
/**
 * Node keeps an idle socket 1 s past the advertised keep-alive timeout, and checks timed-out headers every
 * connectionsCheckingInterval (300 ms here); half a second more for a busy machine (as client-limits.test.ts).
 */
const NODE_BUFFER_MS = 1000;
const CHECK_MS = 300;
const SLACK_MS = 500;

let upstream: TestUpstream;
let gateway: TestGateway;

before(async () => {
  upstream = await startUpstream((_req, res) => sendShortChatStream(res));
  gateway = await startGateway({
    upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }],
    metrics: { port: 0, host: '127.0.0.1' },
    clientLimits: {
      headersTimeoutMs: HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: MAX_CONNECTIONS,
    },
  });
});
after(async () => {
  await gateway.close();
  await upstream.close();
  assert.deepEqual(gateway.records, [], 'no row made an API request');
});

function openMetricsConnection(): Promise<Socket> {
  const port = gateway.context.state.metricsAddress?.port;
  assert.ok(port !== undefined, 'the metrics port listens');
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.on('error', reject);
  });
}

/** Everything the connection receives, and how long after `since` it closed. */
function untilClosed(socket: Socket, since: number): Promise<{ text: string; afterMs: number }> {
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  return withDeadline(
    new Promise((resolve) =>
      socket.once('close', () =>
        resolve({ text: Buffer.concat(chunks).toString('utf8'), afterMs: performance.now() - since }),
      ),
    ),
    () => 'the metrics port to close the connection',
  );
}

/** Sends GET /metrics on a kept-alive connection and resolves with the whole answer (it is sent chunked). */
async function scrape(socket: Socket): Promise<string> {
  let text = '';
  const done = new Promise<void>((resolve) => {
    const onData = (c: Buffer): void => {
      text += c.toString('utf8');
      if (!text.endsWith('\r\n0\r\n\r\n')) return;
      socket.off('data', onData);
      resolve();
    };
    socket.on('data', onData);
  });
  socket.write('GET /metrics HTTP/1.1\r\nhost: metrics\r\n\r\n');
  await withDeadline(done, () => `the /metrics page, got so far: ${text.slice(0, 200)}`);
  return text;
}

test('metrics port: an idle kept-alive connection is closed after keepAliveTimeoutMs', async (t) => {
  const socket = await openMetricsConnection();
  const page = await scrape(socket);
  const answeredAt = performance.now();
  assert.match(page, /^HTTP\/1\.1 200 /);
  assert.match(page, /\r\nKeep-Alive: timeout=1\r\n/i);
  const { afterMs } = await untilClosed(socket, answeredAt);
  t.diagnostic(`closed after ${afterMs.toFixed(0)} ms idle`);
  assert.ok(afterMs >= KEEP_ALIVE_TIMEOUT_MS, `closed after ${afterMs.toFixed(0)} ms`);
  assert.ok(
    afterMs < KEEP_ALIVE_TIMEOUT_MS + NODE_BUFFER_MS + SLACK_MS,
    `closed after ${afterMs.toFixed(0)} ms`,
  );
});

test('metrics port: headers trickled a byte at a time are cut at headersTimeoutMs with a 408', async (t) => {
  const socket = await openMetricsConnection();
  const startedAt = performance.now();
  const closed = untilClosed(socket, startedAt);
  const head = 'GET /metrics HTTP/1.1\r\nhost: metrics\r\nx-slow: ';
  socket.write(head);
  const timer = setInterval(() => {
    if (!socket.destroyed) socket.write('a');
  }, 50);
  const { text, afterMs } = await closed;
  clearInterval(timer);
  t.diagnostic(`cut after ${afterMs.toFixed(0)} ms`);
  assert.match(text, /^HTTP\/1\.1 408 /);
  assert.ok(afterMs < HEADERS_TIMEOUT_MS + CHECK_MS + SLACK_MS, `cut after ${afterMs.toFixed(0)} ms`);
});

test('metrics port: connections beyond maxConnections are refused unanswered and counted', async () => {
  const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, openMetricsConnection));
  try {
    const extra = await openMetricsConnection();
    const closed = untilClosed(extra, performance.now());
    extra.write('GET /metrics HTTP/1.1\r\nhost: metrics\r\n\r\n');
    assert.equal((await closed).text, '', 'the connection over the cap was closed without an answer');
    const page = await scrape(held[0] as Socket);
    assert.match(page, /\ntokenmeter_client_connections_refused_total 1\n/);
  } finally {
    for (const socket of held) socket.destroy();
  }
});
