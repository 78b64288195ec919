// The SSE parser's bound: an event over maxEventBytes skipped whole, parsing resumed at the next one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseParser } from '../../src/sse/sse-parser.js';
import { bytes, collectEvents } from './collect-events.js';

test('an event over maxEventBytes sets overflowed, is skipped, and parsing resumes at the next event', () => {
  const big = 'x'.repeat(200);
  const { events, parser } = collectEvents([bytes(`data: small\n\ndata: ${big}\n\ndata: after\n\n`)], {
    maxEventBytes: 100,
  });
  assert.deepEqual(
    events.map((event) => event.data),
    ['small', 'after'],
  );
  assert.equal(parser.overflowed, true);
  assert.equal(parser.endedMidEvent, false);
});

test('an oversized event split over chunks is skipped up to its blank line, then [DONE] is seen', () => {
  const chunks = ['data: ', 'y'.repeat(300), '\ndata: more', '\n', '\n', 'data: [DONE]\n\n'].map(bytes);
  const { events, parser } = collectEvents(chunks, { maxEventBytes: 100 });
  assert.deepEqual(
    events.map((event) => event.data),
    ['[DONE]'],
  );
  assert.equal(events[0]?.startByte, 6 + 300 + 11 + 2);
  assert.equal(parser.overflowed, true);
  assert.equal(parser.endedMidEvent, false);
});

test('a stream that ends inside an oversized event ended mid-event', () => {
  const { events, parser } = collectEvents([bytes(`data: a\n\ndata: ${'z'.repeat(500)}\ndata: tail`)], {
    maxEventBytes: 100,
  });
  assert.deepEqual(
    events.map((event) => event.data),
    ['a'],
  );
  assert.equal(parser.overflowed, true);
  assert.equal(parser.endedMidEvent, true);
});

test('many small lines of one event count together against the limit', () => {
  const lines = 'data: 0123456789\n'.repeat(20);
  const { events, parser } = collectEvents([bytes(`${lines}\n`)], { maxEventBytes: 100 });
  assert.deepEqual(events, []);
  assert.equal(parser.overflowed, true);
});

test('an endless line held across chunks stays within the limit and is dropped on overflow', () => {
  const limit = 64 * 1024;
  const parser = new SseParser(() => assert.fail('no event expected'), { maxEventBytes: limit });
  const piece = bytes('y'.repeat(4096));
  parser.push(bytes('data: '));
  for (let i = 0; i < 1024; i++) {
    // 4 MiB in all, against a 64 KiB limit.
    parser.push(piece);
    assert.ok(parser.bufferedBytes <= limit, `buffered ${parser.bufferedBytes} after piece ${i}`);
  }
  assert.equal(parser.overflowed, true);
  assert.equal(parser.bufferedBytes, 0);
  assert.equal(parser.bytesSeen, 6 + 1024 * 4096);
});

test('an event exactly at the limit is accepted', () => {
  const value = 'z'.repeat(94);
  const { events, parser } = collectEvents([bytes(`data: ${value}\n\n`)], { maxEventBytes: 100 });
  assert.equal(events[0]?.data, value);
  assert.equal(parser.overflowed, false);
});
