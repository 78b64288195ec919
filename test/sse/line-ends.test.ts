// SSE line ends: LF, CRLF and lone CR, a CRLF split between two chunks counted once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseParser } from '../../src/sse/sse-parser.js';
import { bytes, collectEvents } from './collect-events.js';

function dataOf(...chunks: string[]): string[] {
  return collectEvents(chunks.map(bytes)).events.map((event) => event.data);
}

test('LF, CRLF and lone CR all end lines', () => {
  assert.deepEqual(dataOf('data: a\n\ndata: b\r\n\r\ndata: c\r\rdata: d\r\n\n'), ['a', 'b', 'c', 'd']);
});

test('a CR ending one chunk and an LF starting the next are one line end, not two', () => {
  // Two line ends would make a blank line and dispatch "a" and "b" apart.
  assert.deepEqual(dataOf('data: a\r', '\ndata: b\r\n\r\n'), ['a\nb']);
  assert.deepEqual(dataOf('data: a\r', '\n', '\r', '\n'), ['a']);
});

test('a CR ending one chunk followed by another CR is two line ends', () => {
  assert.deepEqual(dataOf('data: a\r', '\rdata: b\r', '\r'), ['a', 'b']);
});

test('an event is dispatched on the CR itself, without waiting for a possible LF', () => {
  const events: string[] = [];
  const parser = new SseParser((event) => events.push(event.data));
  parser.push(bytes('data: now\r\r'));
  assert.deepEqual(events, ['now']);
});
