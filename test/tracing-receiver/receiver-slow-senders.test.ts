// A sender that trickles its body, stops, or goes away mid-body holds one of the receiver's reading slots only
// until the read deadline or its disconnect; while the slots are taken, exports are answered 503 with
// Retry-After (OTLP's retryable status), and once freed they are taken again.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { SpanReceiver } from '../../src/tracing/receiver/span-receiver.js';
import { type ReceiverServer, startReceiverServer } from './helpers/receiver-server.js';

// Long enough that the 503 below is seen while the first sender still holds the slot on a loaded machine;
// short enough for a test row.
const READ_TIMEOUT_MS = 1500;
const receiver = new SpanReceiver({
  sink: { offer: () => false },
  forwarder: null,
  maxConcurrent: 1,
  readTimeoutMs: READ_TIMEOUT_MS,
});
let server: ReceiverServer;

before(async () => {
  server = await startReceiverServer(receiver);
});
after(() => server.close());

/** Opens a connection and sends the headers of a 1000-byte JSON export and its first 10 bytes, then nothing. */
async function stalledExport(): Promise<Socket> {
  const { port } = new URL(server.url);
  const socket = connect(Number(port), '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(
    'POST /v1/traces HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"resource',
  );
  return socket;
}

async function postEmptyExport(): Promise<{ status: number; retryAfter: unknown }> {
  const answer = await request(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  await answer.body.dump();
  return { status: answer.statusCode, retryAfter: answer.headers['retry-after'] };
}

test('a stalled body holds its slot (others get 503) until the read deadline cuts it', {
  timeout: 10_000,
}, async () => {
  const stalled = await stalledExport();
  const closed = new Promise<void>((resolve) => stalled.once('close', () => resolve()));
  let busy = await postEmptyExport();
  // The stalled request's headers may reach the receiver after this one's: try until it holds the slot.
  while (busy.status === 200) busy = await postEmptyExport();
  assert.deepEqual(busy, { status: 503, retryAfter: '1' });
  await closed; // cut by the receiver at the deadline, unanswered
  assert.equal(receiver.stats.exports.incomplete, 1);
  assert.equal((await postEmptyExport()).status, 200);
});

test('a sender that goes away mid-body frees its slot at once', { timeout: 10_000 }, async () => {
  const stalled = await stalledExport();
  let busy = await postEmptyExport();
  while (busy.status === 200) busy = await postEmptyExport();
  stalled.destroy();
  let status = busy.status;
  while (status === 503) status = (await postEmptyExport()).status;
  assert.equal(status, 200);
  assert.equal(receiver.stats.exports.incomplete, 2);
});
