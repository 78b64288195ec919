// The trace-context format on its own: ids drawn from the pooled random buffer are well-formed, never all zero and
// distinct across pool refills, and what this module writes it reads back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  newSpan,
  newSpanId,
  newTraceId,
  parseTraceparent,
  traceparentOf,
} from '../../src/shared/trace-context.js';

test('ids are lower-case hex of the spec lengths and distinct across several pool refills', () => {
  // 4 KiB pool: 3000 trace ids (16 bytes) and 3000 span ids (8 bytes) refill it 17 times.
  const traces = new Set<string>();
  const spans = new Set<string>();
  for (let i = 0; i < 3000; i++) {
    const traceId = newTraceId();
    const spanId = newSpanId();
    assert.match(traceId, /^[0-9a-f]{32}$/);
    assert.match(spanId, /^[0-9a-f]{16}$/);
    traces.add(traceId);
    spans.add(spanId);
  }
  assert.equal(traces.size, 3000);
  assert.equal(spans.size, 3000);
});

test('a traceparent this module writes it reads back, and a continued span keeps trace and flags', () => {
  const root = newSpan();
  assert.equal(root.parentSpanId, null);
  const parsed = parseTraceparent(traceparentOf(root));
  assert.deepEqual(parsed, { traceId: root.traceId, parentId: root.spanId, flags: root.flags });
  const child = newSpan(parsed);
  assert.equal(child.traceId, root.traceId);
  assert.equal(child.parentSpanId, root.spanId);
  assert.equal(child.flags, root.flags);
  assert.notEqual(child.spanId, root.spanId);
});
