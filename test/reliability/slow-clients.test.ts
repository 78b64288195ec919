// Fault-matrix rows for clients that send too slowly (clientLimits). Slowloris: many connections each sending its
// headers a byte at a time are answered 408 and cut within headersTimeoutMs and one check of Node's timer, and
// never become requests (no record, nothing upstream). Slow body: a body trickled past requestTimeoutMs gets 408,
// one record saying rejected, and never reaches the upstream.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { sendShortChatStream, startUpstream, type TestUpstream } from '../gateway/helpers/upstream.js';
import { closeAndAccount } from './accounting.js';

const HEADERS_TIMEOUT_MS = 300;
const REQUEST_TIMEOUT_MS = 600;
/** Node checks for timed-out connections every connectionsCheckingInterval: min(1 s, headers timeout) here. */
const CHECK_MS = 300;
/** Room for a busier machine: the measured cuts (below) came at most 50 ms after the bound and one check. */
const SLACK_MS = 500;

let upstream: TestUpstream;

before(async () => {
  upstream = await startUpstream((_req, res) => sendShortChatStream(res));
});
after(async () => {
  await upstream.close();
});

function start(): Promise<TestGateway> {
  return startGateway({
    upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }],
    clientLimits: { headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS },
  });
}

interface Cut {
  readonly text: string;
  /** From the connection's first byte to its close. */
  readonly closedAfterMs: number;
}

/**
 * Opens a connection that sends `first` at once, then the rest of `bytes` one byte every `everyMs`; resolves with
 * what came back once the gateway closes the connection.
 */
function trickle(gateway: TestGateway, first: string, bytes: string, everyMs: number): Promise<Cut> {
  const { hostname, port } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    let startedAt = 0;
    let next = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ text: Buffer.concat(chunks).toString('utf8'), closedAfterMs: performance.now() - startedAt });
    });
    socket.on('connect', () => {
      startedAt = performance.now();
      socket.write(first);
      timer = setInterval(() => {
        if (next < bytes.length) socket.write(bytes[next++] ?? '');
      }, everyMs);
    });
  });
}

test('slowloris: 50 connections sending headers a byte every 50 ms are each cut with 408 within the headers timeout', async (t) => {
  const gateway = await start();
  const upstreamRequests = upstream.requests.length;
  const head =
    'POST /v1/chat/completions HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\n\r\n';
  const cuts = await Promise.all(Array.from({ length: 50 }, () => trickle(gateway, 'P', head.slice(1), 50)));
  const slowest = Math.max(...cuts.map((c) => c.closedAfterMs));
  t.diagnostic(`slowest cut ${slowest.toFixed(0)} ms after its first byte`);
  for (const cut of cuts) assert.match(cut.text, /^HTTP\/1\.1 408 /);
  // A check cuts what started over headersTimeoutMs ago, so a cut lands 300-600 ms after the first byte.
  // Measured on 2 shared cores (12 runs): slowest of the 50 at 552-648 ms, past 600 by event-loop delay only.
  assert.ok(slowest < HEADERS_TIMEOUT_MS + CHECK_MS + SLACK_MS, `slowest cut after ${slowest.toFixed(0)} ms`);
  assert.equal(upstream.requests.length, upstreamRequests, 'the upstream was not contacted');
  // Headers never completed: none of them became a request, so there is nothing to record.
  await closeAndAccount(gateway, 0);
});

test('slow body: a body trickled past the request timeout gets 408, is recorded as rejected and never goes upstream', async (t) => {
  const gateway = await start();
  const upstreamRequests = upstream.requests.length;
  const cut = await trickle(
    gateway,
    'POST /v1/chat/completions HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\n' +
      'content-length: 100\r\nx-request-id: slow-body\r\n\r\n',
    '{"model": "m", "stream": true}',
    100,
  );
  t.diagnostic(`cut ${cut.closedAfterMs.toFixed(0)} ms after the first byte`);
  assert.match(cut.text, /^HTTP\/1\.1 408 /);
  // Measured on 2 shared cores (20 runs): 601-921 ms after the first byte (600 ms, then up to one check late).
  assert.ok(
    cut.closedAfterMs < REQUEST_TIMEOUT_MS + CHECK_MS + SLACK_MS,
    `cut after ${cut.closedAfterMs.toFixed(0)} ms`,
  );
  assert.equal(upstream.requests.length, upstreamRequests, 'the upstream was not contacted');
  const [record] = await closeAndAccount(gateway, 1);
  assert.equal(record?.requestId, 'slow-body');
  assert.equal(record?.outcome, 'rejected');
  assert.match(record?.error ?? '', /clientLimits\.requestTimeoutMs/);
});
