// The receiver decodes what the official OTLP exporters send, JSON and protobuf, plain and gzipped, to the same
// spans; ids, parent, name, times and vLLM's llm_request attributes survive both encodings.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newSpanId, newTraceId } from '../../src/shared/trace-context.js';
import type { ReceivedSpan } from '../../src/tracing/receiver/received-span.js';
import { SpanReceiver } from '../../src/tracing/receiver/span-receiver.js';
import { type ReceiverServer, startReceiverServer } from './helpers/receiver-server.js';
import { exportWithSdk, llmRequestAttributes, sdkSpans } from './helpers/sdk-export.js';

const received: ReceivedSpan[] = [];
// Keeps every span: these tests are about decoding, not the join (receiver-join.test.ts).
const receiver = new SpanReceiver({ sink: { offer: (span) => received.push(span) > 0 }, forwarder: null });
let server: ReceiverServer;

before(async () => {
  server = await startReceiverServer(receiver);
});
after(() => server.close());

const traceId = newTraceId();
const parentSpanId = newSpanId();
const startTime = 1_764_000_000_123; // Unix ms
const specs = [
  {
    traceId,
    parentSpanId,
    startTime,
    endTime: startTime + 1500,
    attributes: llmRequestAttributes({ queue: 0.25, prefill: 0.125, decode: 1.0, ttft: 0.375, e2e: 1.5 }),
  },
  {
    traceId: newTraceId(),
    parentSpanId: newSpanId(),
    name: 'other',
    startTime,
    endTime: startTime + 1,
    attributes: { big: 2 ** 40, neg: -7, flag: true },
  },
];

function comparable(span: ReceivedSpan) {
  return { ...span, attributes: Object.fromEntries(span.attributes) };
}

async function receive(encoding: 'json' | 'protobuf', gzip: boolean): Promise<ReceivedSpan[]> {
  received.length = 0;
  const result = await exportWithSdk(server.url, encoding, sdkSpans(specs), gzip);
  assert.equal(result.ok, true, String(result.error));
  return received.map((span) => comparable(span) as unknown as ReceivedSpan);
}

test('JSON and protobuf, plain and gzipped, decode to the same spans', async () => {
  const json = await receive('json', false);
  assert.equal(json.length, 2);
  const first = json[0] as unknown as ReturnType<typeof comparable>;
  assert.equal(first.traceId, traceId);
  assert.equal(first.parentSpanId, parentSpanId);
  assert.match(first.spanId, /^[0-9a-f]{16}$/);
  assert.equal(first.name, 'llm_request');
  assert.equal(first.startTimeUnixNano, BigInt(startTime) * 1_000_000n);
  assert.equal(first.endTimeUnixNano, BigInt(startTime + 1500) * 1_000_000n);
  assert.equal(first.attributes['gen_ai.latency.time_in_queue'], 0.25);
  assert.equal(first.attributes['gen_ai.usage.completion_tokens'], 34);
  assert.equal(first.attributes['gen_ai.request.id'], 'cmpl-1');
  const second = json[1] as unknown as ReturnType<typeof comparable>;
  assert.deepEqual(second.attributes, { big: 2 ** 40, neg: -7, flag: true });
  // Span ids are drawn anew each time the SDK builds the spans: compare without them.
  const withoutSpanId = (spans: ReceivedSpan[]) => spans.map(({ spanId: _, ...rest }) => rest);
  for (const [encoding, gzip] of [
    ['protobuf', false],
    ['json', true],
    ['protobuf', true],
  ] as const) {
    assert.deepEqual(
      withoutSpanId(await receive(encoding, gzip)),
      withoutSpanId(json),
      `${encoding} gzip=${gzip}`,
    );
  }
  assert.equal(receiver.stats.exports.accepted, 4);
});
