// SSE fields: the one optional space after data:, several data lines joined, comment lines skipped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bytes, collectEvents } from './collect-events.js';

function eventsOf(text: string) {
  return collectEvents([bytes(text)]).events.map(({ event, data, id }) => ({ event, data, id }));
}

test('data: takes one optional space, and only one', () => {
  assert.deepEqual(
    eventsOf('data:tight\n\ndata: spaced\n\ndata:  two\n\n').map((event) => event.data),
    ['tight', 'spaced', ' two'],
  );
});

test('several data lines are joined with LF', () => {
  assert.deepEqual(eventsOf('data: first\ndata:\ndata: third\n\n'), [
    { event: undefined, data: 'first\n\nthird', id: undefined },
  ]);
});

test('comment lines are skipped, even between the data lines of one event', () => {
  const { events, parser } = collectEvents([bytes(': ping\n\ndata: a\n: keep-alive\ndata: b\n\n:\n\n')]);
  assert.deepEqual(
    events.map((event) => event.data),
    ['a\nb'],
  );
  assert.equal(parser.comments, 3);
});

test('event: sets the type of one event only; id: persists as the last event ID', () => {
  assert.deepEqual(eventsOf('event: delta\nid: 7\ndata: x\n\ndata: y\n\nid\ndata: z\n\n'), [
    { event: 'delta', data: 'x', id: '7' },
    { event: undefined, data: 'y', id: '7' },
    { event: undefined, data: 'z', id: '' },
  ]);
});

test('an id containing NUL is ignored, as the spec says', () => {
  assert.deepEqual(eventsOf('id: 1\n\nid: a\0b\ndata: x\n\n'), [{ event: undefined, data: 'x', id: '1' }]);
});

test('a blank line without data dispatches nothing, and resets the event type', () => {
  assert.deepEqual(eventsOf('event: lost\n\nretry: 10\nunknown: 1\n\ndata: kept\n\n'), [
    { event: undefined, data: 'kept', id: undefined },
  ]);
});

test('an empty data line is still an event, with empty data', () => {
  assert.deepEqual(eventsOf('data:\n\ndata\n\n'), [
    { event: undefined, data: '', id: undefined },
    { event: undefined, data: '', id: undefined },
  ]);
});

test('a field name without a colon is the whole line; a colon in the value is kept', () => {
  assert.deepEqual(eventsOf('data: {"a":"b:c"}\n\n'), [
    { event: undefined, data: '{"a":"b:c"}', id: undefined },
  ]);
});

test('a UTF-8 BOM at the very start of the stream is dropped', () => {
  const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...bytes('data: x\n\n')]);
  for (let cut = 0; cut <= withBom.length; cut++) {
    const { events } = collectEvents([withBom.subarray(0, cut), withBom.subarray(cut)]);
    assert.deepEqual(
      events.map((event) => event.data),
      ['x'],
    );
  }
});

test('invalid UTF-8 becomes U+FFFD instead of throwing', () => {
  const broken = new Uint8Array([...bytes('data: a'), 0xff, ...bytes('b\n\n')]);
  assert.deepEqual(
    collectEvents([broken]).events.map((event) => event.data),
    ['a\uFFFDb'],
  );
});
