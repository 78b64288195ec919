// The SSE parser on a recorded chat stream: the same events whole, split at every point, or byte by byte.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { byteByByte, collectEvents } from './collect-events.js';
import { CHAT_EVENT_DATA, CHAT_STREAM_BYTES } from './fixtures/recorded-chat-stream.js';

const whole = collectEvents([CHAT_STREAM_BYTES]);

test('the recorded chat stream, pushed whole, yields its events in order', () => {
  assert.deepEqual(
    whole.events.map((event) => event.data),
    CHAT_EVENT_DATA,
  );
  for (const event of whole.events) {
    assert.equal(event.event, undefined);
    assert.equal(event.id, undefined);
  }
  assert.equal(whole.parser.comments, 2);
  assert.equal(whole.parser.endedMidEvent, false);
  assert.equal(whole.parser.overflowed, false);
});

test('split at every possible point, the recorded stream yields identical events', () => {
  for (let cut = 0; cut <= CHAT_STREAM_BYTES.length; cut++) {
    const split = collectEvents([CHAT_STREAM_BYTES.subarray(0, cut), CHAT_STREAM_BYTES.subarray(cut)]);
    assert.deepEqual(split.events, whole.events, `split at byte ${cut}`);
    assert.equal(split.parser.comments, 2, `split at byte ${cut}`);
  }
});

test('fed byte by byte, the recorded stream yields identical events', () => {
  const split = collectEvents(byteByByte(CHAT_STREAM_BYTES));
  assert.deepEqual(split.events, whole.events);
});

test('split at every pair of points, the recorded stream yields identical events', () => {
  // Three pieces catch state carried across two boundaries (a CR ending one chunk, a line spanning three).
  const length = CHAT_STREAM_BYTES.length;
  for (let first = 0; first <= length; first += 7) {
    for (let second = first; second <= length; second += 5) {
      const split = collectEvents([
        CHAT_STREAM_BYTES.subarray(0, first),
        CHAT_STREAM_BYTES.subarray(first, second),
        CHAT_STREAM_BYTES.subarray(second),
      ]);
      assert.deepEqual(split.events, whole.events, `split at ${first} and ${second}`);
    }
  }
});

test('event byte ranges run from the data line to the first line-end byte of the closing blank line', () => {
  const text = new TextDecoder().decode(CHAT_STREAM_BYTES);
  const encoder = new TextEncoder();
  for (const event of whole.events) {
    const raw = new TextDecoder().decode(CHAT_STREAM_BYTES.subarray(event.startByte, event.endByte));
    assert.match(raw, /^data:/);
    assert.match(raw, /(\n\n|\r\n\r|\r\r)$/);
    assert.ok(text.includes(raw));
    assert.equal(encoder.encode(raw).length, event.endByte - event.startByte);
  }
});
