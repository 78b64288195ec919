// The SSE parser at the end of a stream: a final event without its blank line, endedMidEvent, bytes after end().
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseParser } from '../../src/sse/sse-parser.js';
import { bytes, collectEvents } from './collect-events.js';

test('a final event without its blank line is discarded at end(), and endedMidEvent says so', () => {
  for (const tail of ['data: [DONE]', 'data: [DONE]\n', 'data: [DONE]\r', 'event: x\n']) {
    const { events, parser } = collectEvents([bytes(`data: a\n\n${tail}`)]);
    assert.deepEqual(
      events.map((event) => event.data),
      ['a'],
      JSON.stringify(tail),
    );
    assert.equal(parser.endedMidEvent, true, JSON.stringify(tail));
  }
});

test('a stream ending after a complete event, a comment or a partial comment did not end mid-event', () => {
  for (const tail of ['', ': ping\n', ': pi', '\n']) {
    const { parser } = collectEvents([bytes(`data: a\n\n${tail}`)]);
    assert.equal(parser.endedMidEvent, false, JSON.stringify(tail));
  }
});

test('nothing is dispatched before the blank line, and bytes pushed after end() are ignored', () => {
  const events: string[] = [];
  const parser = new SseParser((event) => events.push(event.data));
  parser.push(bytes('data: a\n'));
  assert.deepEqual(events, []);
  parser.push(bytes('\n'));
  assert.deepEqual(events, ['a']);
  parser.end();
  parser.push(bytes('data: late\n\n'));
  assert.deepEqual(events, ['a']);
});

test('pendingEventStart points at the first field line of the event being assembled', () => {
  const parser = new SseParser(() => {});
  assert.equal(parser.pendingEventStart, -1);
  parser.push(bytes(': ping\n\n'));
  assert.equal(parser.pendingEventStart, -1);
  parser.push(bytes(': partial comm'));
  assert.equal(parser.pendingEventStart, -1);
  parser.push(bytes('ent\nda'));
  assert.equal(parser.pendingEventStart, 26);
  parser.push(bytes('ta: x\n'));
  assert.equal(parser.pendingEventStart, 26);
  parser.push(bytes('\n'));
  assert.equal(parser.pendingEventStart, -1);
});
