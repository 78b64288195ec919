// The streaming JSON array splitter: every element at any read size, oversized elements, a file cut short.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type ArrayElement,
  NotAJsonArrayError,
  type SplitterNotice,
  splitJsonArray,
} from '../../loadgen/datasets/json-array-splitter.js';
import { collect, inChunks } from './helpers/chunked.js';

// Strings holding brackets, quotes, escaped backslashes and multi-byte characters, plus scalar elements.
const ELEMENTS = [
  '{"id":"a","text":"has ] and } and { inside"}',
  '{"id":"b","text":"escaped \\"quote\\" and ]"}',
  '{"id":"c","path":"C:\\\\dir\\\\"}',
  '{"id":"d","text":"中文 and emoji 😀 across reads","nested":[[1,{"x":[]}],{}]}',
  '"a bare string, ] }"',
  '42',
  'null',
  '[1,2,{"a":"]"}]',
];
const DOCUMENT = `\ufeff[\n  ${ELEMENTS.join(',\n  ')}\n]\n`;

function values(elements: ArrayElement[]): unknown[] {
  return elements.map((e) => (e.kind === 'element' ? JSON.parse(e.bytes.toString('utf8')) : e.reason));
}

test('splits every element, whatever the read size, with byte offsets into the stream', async () => {
  const bytes = Buffer.from(DOCUMENT, 'utf8');
  const expected = ELEMENTS.map((text) => JSON.parse(text));
  for (const size of [1, 2, 3, 5, 7, 16, 64, bytes.length]) {
    const elements = await collect(splitJsonArray(inChunks(bytes, size)));
    assert.deepEqual(values(elements), expected, `read size ${size}`);
    for (const element of elements) {
      assert.equal(element.kind, 'element');
      if (element.kind === 'element')
        assert.deepEqual(bytes.subarray(element.start, element.end), element.bytes);
    }
  }
});

test('reports an oversized element without keeping it, and goes on', async () => {
  const bytes = Buffer.from(`[{"big":"${'x'.repeat(200)}"},{"small":1}]`);
  const elements = await collect(splitJsonArray(inChunks(bytes, 7), { maxElementBytes: 100 }));
  assert.equal(elements.length, 2);
  assert.equal(elements[0]?.kind, 'broken');
  assert.match(elements[0]?.kind === 'broken' ? elements[0].reason : '', /larger than the 100-byte limit/);
  assert.deepEqual(values(elements.slice(1)), [{ small: 1 }]);
});

test('notices structural oddities and reports an element cut off at end of file', async () => {
  const notices: SplitterNotice[] = [];
  const bytes = Buffer.from('[{"a":1} {"b":2},,{"c":"unterminated');
  const elements = await collect(splitJsonArray(inChunks(bytes, 4), { onNotice: (n) => notices.push(n) }));
  assert.deepEqual(values(elements.slice(0, 2)), [{ a: 1 }, { b: 2 }]);
  assert.equal(elements[2]?.kind, 'broken');
  assert.match(elements[2]?.kind === 'broken' ? elements[2].reason : '', /unterminated/);
  assert.deepEqual(
    notices.map((n) => n.message),
    ["missing ',' between elements", 'extra comma ignored'],
  );
});

test('refuses a document that is not an array', async () => {
  await assert.rejects(collect(splitJsonArray(inChunks(Buffer.from('{"a":1}'), 3))), NotAJsonArrayError);
  await assert.rejects(collect(splitJsonArray(inChunks(Buffer.from('  '), 3))), NotAJsonArrayError);
});
