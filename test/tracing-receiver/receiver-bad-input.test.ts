// What the receiver answers to exports it cannot take: too large (declared, streamed, or inflating past the
// bound), not decodable, in an encoding it does not speak; and spans it cannot keep. Each answer is the status
// OTLP/HTTP names, with a body the exporter's own deserializer reads, and the receiver goes on serving.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { request } from 'undici';
import { newSpanId, newTraceId } from '../../src/shared/trace-context.js';
import { SpanReceiver } from '../../src/tracing/receiver/span-receiver.js';
import { type ReceiverServer, startReceiverServer } from './helpers/receiver-server.js';
import { exportWithSdk, llmRequestAttributes, sdkSpans } from './helpers/sdk-export.js';

const MAX_BODY_BYTES = 64 * 1024;
// No request is measured here: every span is unmatched, and with no collector configured, rejected.
const receiver = new SpanReceiver({
  sink: { offer: () => false },
  forwarder: null,
  maxBodyBytes: MAX_BODY_BYTES,
});
let server: ReceiverServer;

before(async () => {
  server = await startReceiverServer(receiver);
});
after(() => server.close());

const spans = sdkSpans([
  {
    traceId: newTraceId(),
    parentSpanId: newSpanId(),
    attributes: llmRequestAttributes({ queue: 0, prefill: 0.1, decode: 0.2, ttft: 0.1, e2e: 0.3 }),
  },
]);
const protobufBody = Buffer.from(ProtobufTraceSerializer.serializeRequest(spans) as Uint8Array);

async function post(body: Buffer | string, headers: Record<string, string>) {
  const answer = await request(server.url, { method: 'POST', body, headers });
  return {
    status: answer.statusCode,
    headers: answer.headers,
    body: Buffer.from(await answer.body.arrayBuffer()),
  };
}

test('an export larger than the bound is answered 413, declared or streamed, plain or inflating', async () => {
  const large = Buffer.alloc(MAX_BODY_BYTES + 1, 0x41);
  const declared = await post(large, { 'content-type': 'application/x-protobuf' });
  assert.equal(declared.status, 413);
  // Streamed without content-length: the bound applies to the bytes as they come.
  const streamed = await request(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: Readable.from(
      (function* () {
        for (let i = 0; i < 4; i++) yield Buffer.alloc(MAX_BODY_BYTES / 2, 0x20);
      })(),
    ),
  });
  assert.equal(streamed.statusCode, 413);
  assert.match(await streamed.body.text(), /larger than 65536 bytes/);
  // A gzip body of a few hundred bytes that inflates to 1 MiB.
  const bomb = gzipSync(Buffer.alloc(1024 * 1024, 0x20));
  assert.ok(bomb.length < MAX_BODY_BYTES);
  const inflating = await post(bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
  assert.equal(inflating.status, 413);
  assert.equal(receiver.stats.exports.too_large, 3);
});

test('a body that does not decode is answered 400 with a google.rpc.Status in its encoding', async () => {
  const truncated = await post(protobufBody.subarray(0, protobufBody.length - 5), {
    'content-type': 'application/x-protobuf',
  });
  assert.equal(truncated.status, 400);
  assert.equal(truncated.headers['content-type'], 'application/x-protobuf');
  assert.match(truncated.body.toString('latin1'), /not an ExportTraceServiceRequest/);
  const notJson = await post('{"resourceSpans": [', { 'content-type': 'application/json' });
  assert.equal(notJson.status, 400);
  assert.deepEqual(JSON.parse(notJson.body.toString()), {
    code: 3,
    message: 'not an ExportTraceServiceRequest: the body is not JSON',
  });
  const wrongShape = await post('{"resourceSpans": {"scopeSpans": 1}}', {
    'content-type': 'application/json',
  });
  assert.equal(wrongShape.status, 400);
  const notGzip = await post(protobufBody, {
    'content-type': 'application/x-protobuf',
    'content-encoding': 'gzip',
  });
  assert.equal(notGzip.status, 400);
  assert.equal(receiver.stats.exports.bad_request, 4);
});

test('other encodings and methods are answered 415 and 405', async () => {
  assert.equal((await post(protobufBody, { 'content-type': 'text/plain' })).status, 415);
  assert.equal(
    (await post(protobufBody, { 'content-type': 'application/x-protobuf', 'content-encoding': 'br' })).status,
    415,
  );
  const get = await request(server.url);
  assert.equal(get.statusCode, 405);
  assert.equal(get.headers['allow'], 'POST');
  await get.body.dump();
});

test('spans kept nowhere are counted in partial_success, which the exporters read', async () => {
  const answer = await post(protobufBody, { 'content-type': 'application/x-protobuf' });
  assert.equal(answer.status, 200);
  const response = ProtobufTraceSerializer.deserializeResponse(answer.body);
  assert.equal(Number(response.partialSuccess?.rejectedSpans), 1);
  assert.match(String(response.partialSuccess?.errorMessage), /no collector is configured/);
  const json = Buffer.from(JsonTraceSerializer.serializeRequest(spans) as Uint8Array);
  const jsonAnswer = await post(json, { 'content-type': 'application/json' });
  assert.equal(
    Number(JsonTraceSerializer.deserializeResponse(jsonAnswer.body).partialSuccess?.rejectedSpans),
    1,
  );
});

test('a span whose ids are not OTLP sizes is rejected; the receiver still takes good exports after all this', async () => {
  const bad = {
    resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'abc', spanId: '0102030405060708', name: 'x' }] }] }],
  };
  const answer = await post(JSON.stringify(bad), { 'content-type': 'application/json' });
  assert.equal(answer.status, 200);
  assert.match(answer.body.toString(), /"rejectedSpans":"1".*wrong size/);
  assert.equal(receiver.stats.rejectedSpans, 1);
  assert.equal((await exportWithSdk(server.url, 'protobuf', spans)).ok, true);
});
