// What the receiver reads of an export is bounded by count, not only by bytes (src/tracing/receiver/
// export-limits.ts): spans past the export's span bound are counted, not read, and reported rejected in
// partial_success (when no collector takes them); attributes past a span's bound are passed over; a JSON export
// with more values than its bound is refused 413 unparsed. Bounds are lowered here so that small exports made by
// the official SDK reach them; the defaults are what test/tracing-receiver/receiver-flood.test.ts holds to.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { request } from 'undici';
import { newSpanId, newTraceId } from '../../src/shared/trace-context.js';
import type { ReceivedSpan } from '../../src/tracing/receiver/received-span.js';
import { SpanReceiver } from '../../src/tracing/receiver/span-receiver.js';
import { type ReceiverServer, startReceiverServer } from './helpers/receiver-server.js';
import { llmRequestAttributes, sdkSpans } from './helpers/sdk-export.js';

const MAX_SPANS = 3;
const MAX_ATTRIBUTES = 4;
const offered: ReceivedSpan[] = [];
const receiver = new SpanReceiver({
  sink: {
    offer: (span) => {
      offered.push(span);
      return true;
    },
  },
  forwarder: null,
  limits: { maxSpans: MAX_SPANS, maxAttributesPerSpan: MAX_ATTRIBUTES, maxJsonValues: 2000 },
});
let server: ReceiverServer;
before(async () => {
  server = await startReceiverServer(receiver);
});
after(() => server.close());

const spans = sdkSpans(
  Array.from({ length: MAX_SPANS + 2 }, () => ({
    traceId: newTraceId(),
    parentSpanId: newSpanId(),
    attributes: llmRequestAttributes({ queue: 0, prefill: 0.1, decode: 0.2, ttft: 0.1, e2e: 0.3 }),
  })),
);

async function post(body: Buffer, contentType: string): Promise<{ status: number; body: Buffer }> {
  const answer = await request(server.url, {
    method: 'POST',
    body,
    headers: { 'content-type': contentType },
  });
  return { status: answer.statusCode, body: Buffer.from(await answer.body.arrayBuffer()) };
}

for (const [encoding, serializer, contentType] of [
  ['protobuf', ProtobufTraceSerializer, 'application/x-protobuf'],
  ['json', JsonTraceSerializer, 'application/json'],
] as const) {
  test(`${encoding}: spans past the bound are rejected in partial_success; the first are read, each to its attribute bound`, async () => {
    offered.length = 0;
    const overBefore = receiver.stats.overLimitSpans;
    const answer = await post(Buffer.from(serializer.serializeRequest(spans) as Uint8Array), contentType);
    assert.equal(answer.status, 200);
    const partial = serializer.deserializeResponse(answer.body).partialSuccess;
    assert.equal(Number(partial?.rejectedSpans), 2);
    assert.match(String(partial?.errorMessage), /2 spans past the first 3 of the export were not read/);
    assert.equal(receiver.stats.overLimitSpans - overBefore, 2);
    assert.deepEqual(
      offered.map((s) => s.spanId),
      spans.slice(0, MAX_SPANS).map((s) => s.spanContext().spanId),
    );
    // The SDK writes the attributes in the order they were set: the first MAX_ATTRIBUTES are kept.
    for (const span of offered) {
      assert.deepEqual(
        [...span.attributes.keys()],
        Object.keys(spans[0]?.attributes ?? {}).slice(0, MAX_ATTRIBUTES),
      );
    }
  });
}

test('a JSON export of more values than its bound is refused 413 before it is parsed', async () => {
  const many = Buffer.from(`{"resourceSpans":[{"scopeSpans":[{"spans":[${'{},'.repeat(1000)}{}]}]}]}`);
  const tooLargeBefore = receiver.stats.exports.too_large;
  offered.length = 0;
  const answer = await post(many, 'application/json');
  assert.equal(answer.status, 413);
  assert.deepEqual(JSON.parse(answer.body.toString()), {
    code: 8,
    message: 'the export holds more than 2000 JSON values; send smaller batches',
  });
  assert.equal(receiver.stats.exports.too_large - tooLargeBefore, 1);
  assert.equal(offered.length, 0);
  // Commas and brackets inside strings are not values.
  const inStrings = Buffer.from(JSON.stringify({ resourceSpans: [], note: '{[,'.repeat(5000) }));
  assert.equal((await post(inStrings, 'application/json')).status, 200);
});
