// Every accepted export goes on to the collector unchanged (same bytes, content-type, content-encoding), off the
// receiver's answer; a collector that refuses connections or never answers neither delays the answers nor makes
// the receiver hold more than its bound, and every export it did not take is counted.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { request } from 'undici';
import { newSpanId, newTraceId } from '../../src/shared/trace-context.js';
import { ExportForwarder } from '../../src/tracing/receiver/export-forwarder.js';
import { SpanReceiver } from '../../src/tracing/receiver/span-receiver.js';
import { until } from '../helpers/deadline.js';
import { type ReceiverServer, startReceiverServer } from './helpers/receiver-server.js';
import { exportWithSdk, llmRequestAttributes, sdkSpans } from './helpers/sdk-export.js';

const spans = sdkSpans([
  {
    traceId: newTraceId(),
    parentSpanId: newSpanId(),
    attributes: llmRequestAttributes({ queue: 0, prefill: 0.1, decode: 0.2, ttft: 0.1, e2e: 0.3 }),
  },
]);
const gzippedProtobuf = gzipSync(ProtobufTraceSerializer.serializeRequest(spans) as Uint8Array);

interface Received {
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

const cleanups: (() => Promise<unknown>)[] = [];
after(() => Promise.all(cleanups.map((c) => c())));

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
}

async function receiverForwardingTo(url: string, options = {}): Promise<[ReceiverServer, ExportForwarder]> {
  const forwarder = new ExportForwarder(url, options);
  // Reading slots for every export a test sends at once (20): past the default 8, some would be answered 503,
  // which is the slot bound's test (receiver-slow-senders), not the forwarder's.
  const server = await startReceiverServer(
    new SpanReceiver({ sink: { offer: () => false }, forwarder, maxConcurrent: 32 }),
  );
  cleanups.push(
    () => server.close(),
    () => forwarder.close(),
  );
  return [server, forwarder];
}

async function postExport(url: string): Promise<number> {
  const answer = await request(url, {
    method: 'POST',
    body: gzippedProtobuf,
    headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' },
  });
  await answer.body.dump();
  return answer.statusCode;
}

test('the collector receives the same bytes with the same content-type and content-encoding', async () => {
  const received: Received[] = [];
  const collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const [server, forwarder] = await receiverForwardingTo(await listen(collector));
  assert.equal(await postExport(server.url), 200);
  assert.equal((await exportWithSdk(server.url, 'json', spans)).ok, true);
  await until(
    () => forwarder.stats.forwarded === 2,
    () => `2 exports forwarded, stats: ${JSON.stringify(forwarder.stats)}`,
  );
  const [protobuf, json] = received as [Received, Received];
  assert.deepEqual(protobuf.body, gzippedProtobuf);
  assert.equal(protobuf.headers['content-type'], 'application/x-protobuf');
  assert.equal(protobuf.headers['content-encoding'], 'gzip');
  assert.equal(json.headers['content-type'], 'application/json');
  assert.equal(JSON.parse(json.body.toString()).resourceSpans[0].scopeSpans[0].spans[0].name, 'llm_request');
  // With a collector taking them, spans that joined nothing are accepted, not rejected.
  assert.deepEqual(forwarder.stats, { forwarded: 2, failed: 0, dropped: 0 });
});

test('a collector that refuses connections costs a count per export, never an answer', async () => {
  const gone = createServer();
  const url = await listen(gone);
  await new Promise<void>((resolve) => gone.close(() => resolve()));
  const [server, forwarder] = await receiverForwardingTo(url);
  const statuses = await Promise.all(Array.from({ length: 20 }, () => postExport(server.url)));
  assert.deepEqual(new Set(statuses), new Set([200]));
  await until(
    () => forwarder.stats.failed + forwarder.stats.dropped === 20,
    () => `20 exports failed or dropped, stats: ${JSON.stringify(forwarder.stats)}`,
  );
  assert.equal(forwarder.stats.forwarded, 0);
});

test('a collector that never answers: answers go on, what waits stays within its bound, the rest is dropped', async () => {
  const sockets: Socket[] = [];
  const blackHole = createServer(() => {}); // reads the request, never answers
  blackHole.on('connection', (socket) => sockets.push(socket));
  const maxQueuedBytes = gzippedProtobuf.length * 3;
  const [server, forwarder] = await receiverForwardingTo(await listen(blackHole), {
    maxInFlight: 2,
    maxQueuedBytes,
    timeoutMs: 60_000,
  });
  for (let i = 0; i < 30; i++) {
    // One at a time: each answer arrives while the collector holds every forward it was given.
    assert.equal(await postExport(server.url), 200);
    assert.ok(forwarder.queuedBytes <= maxQueuedBytes);
  }
  await until(
    () => sockets.length === 2,
    () => `2 connections at the collector, ${sockets.length} so far`,
  );
  // Two on the wire, three waiting, the rest dropped.
  assert.equal(forwarder.stats.dropped, 25);
  assert.equal(forwarder.queuedBytes, maxQueuedBytes);
  await forwarder.close();
  assert.equal(forwarder.queuedBytes, 0);
  await until(
    () => forwarder.stats.failed === 2,
    () => `2 failed forwards, stats: ${JSON.stringify(forwarder.stats)}`,
  );
  assert.equal(forwarder.stats.dropped, 28);
});
