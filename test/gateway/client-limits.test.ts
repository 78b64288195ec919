// Bounds on what a client controls besides its body's size (clientLimits): a client that trickles its headers
// (slowloris) or its body is answered 408 and disconnected once its time is up, a request cut that way is
// recorded as rejected and never reaches the upstream, connections beyond maxConnections are refused, and the
// request timeout never cuts a long answer: it bounds receiving the request only.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import { chatStreamSteps, playScript, startUpstream, type TestUpstream } from './helpers/upstream.js';

const HEADERS_TIMEOUT_MS = 300;
const REQUEST_TIMEOUT_MS = 600;
/** Node checks for timed-out connections every min(1 s, headers timeout); a cut lands within one check of its bound. */
const CHECK_MS = 300;
/** Room for a busy shared machine on top of the bound and one check: far below the 60 s a stalled client got before. */
const SLACK_MS = 1500;

let upstream: TestUpstream;
let gateway: TestGateway;

before(async () => {
  upstream = await startUpstream((_req, res) => {
    // Twelve chunks 100 ms apart: the answer takes twice the request timeout.
    playScript(res, chatStreamSteps(12, 100, 100, false), []);
  });
  gateway = await startGateway({
    upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }],
    clientLimits: {
      headersTimeoutMs: HEADERS_TIMEOUT_MS,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      maxConnections: 3,
    },
  });
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

interface Stalled {
  readonly text: string;
  /** From the last byte the client sent to the connection's close. */
  readonly closedAfterMs: number;
}

/** Sends `bytes` and nothing more; resolves with what came back once the gateway closes the connection. */
function stall(bytes: string): Promise<Stalled> {
  const { hostname, port } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    let sentAt = 0;
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () =>
      resolve({ text: Buffer.concat(chunks).toString('utf8'), closedAfterMs: performance.now() - sentAt }),
    );
    socket.write(bytes, () => {
      sentAt = performance.now();
    });
  });
}

test('a client that never finishes its headers gets 408 and is disconnected within the headers timeout', async (t) => {
  const upstreamRequests = upstream.requests.length;
  const result = await stall('POST /v1/chat/completions HTTP/1.1\r\nhost: gateway\r\ncontent-type: applic');
  t.diagnostic(`closed ${result.closedAfterMs.toFixed(0)} ms after the last byte`);
  assert.match(result.text, /^HTTP\/1\.1 408 /);
  assert.ok(
    result.closedAfterMs < HEADERS_TIMEOUT_MS + CHECK_MS + SLACK_MS,
    `closed ${result.closedAfterMs.toFixed(0)} ms after the last byte`,
  );
  assert.equal(upstream.requests.length, upstreamRequests, 'the upstream was not contacted');
});

test('a body trickled past the request timeout gets 408, is recorded as rejected and never goes upstream', async (t) => {
  const upstreamRequests = upstream.requests.length;
  const recorded = gateway.records.length;
  const result = await stall(
    'POST /v1/chat/completions HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\n' +
      'content-length: 100\r\nx-request-id: slow-body\r\n\r\n{"model"',
  );
  t.diagnostic(`closed ${result.closedAfterMs.toFixed(0)} ms after the last byte`);
  assert.match(result.text, /^HTTP\/1\.1 408 /);
  assert.ok(
    result.closedAfterMs < REQUEST_TIMEOUT_MS + CHECK_MS + SLACK_MS,
    `closed ${result.closedAfterMs.toFixed(0)} ms after the last byte`,
  );
  const [record] = (await gateway.recordsAfter(recorded + 1)).slice(recorded);
  assert.equal(record?.requestId, 'slow-body');
  assert.equal(record?.outcome, 'rejected');
  assert.match(record?.error ?? '', /clientLimits\.requestTimeoutMs/);
  assert.equal(upstream.requests.length, upstreamRequests, 'the upstream was not contacted');
});

test('the request timeout bounds receiving the request, never the answer', async () => {
  const started = performance.now();
  const response = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"model":"m","stream":true}',
  });
  const text = await response.body.text();
  const tookMs = performance.now() - started;
  assert.equal(response.statusCode, 200);
  assert.ok(text.endsWith('data: [DONE]\n\n'), 'the whole answer arrived');
  assert.ok(
    tookMs > 2 * REQUEST_TIMEOUT_MS,
    `the answer took ${tookMs.toFixed(0)} ms, longer than the bound`,
  );
});

test('connections beyond maxConnections are refused while the others are served', async () => {
  const { hostname, port } = new URL(gateway.url);
  const open = (): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port) }, () => resolve(socket));
      socket.on('error', reject);
    });
  const held = [await open(), await open(), await open()];
  try {
    // Node closes a connection over the limit as soon as it accepts it: the client sees it end, unanswered.
    const extra = await open();
    const ended = await new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      extra.on('data', (c: Buffer) => chunks.push(c));
      extra.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      extra.write('GET /healthz HTTP/1.1\r\nhost: gateway\r\n\r\n');
    });
    assert.equal(ended, '', 'the connection over the limit was closed without an answer');
    const answer = await new Promise<string>((resolve) => {
      const first = held[0] as Socket;
      first.once('data', (c: Buffer) => resolve(c.toString('utf8')));
      first.write('GET /healthz HTTP/1.1\r\nhost: gateway\r\n\r\n');
    });
    assert.match(answer, /^HTTP\/1\.1 200 /);
  } finally {
    for (const socket of held) socket.destroy();
  }
});
