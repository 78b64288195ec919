// Per-token gaps: a gap before a chunk of k tokens is k gaps of g / k; chunks without tokens add none.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { perTokenGaps } from '../../src/measure/stream-figures.js';

test('a gap of g before a chunk of k tokens is k gaps of g / k; the first chunk has none', () => {
  // Chunks of 2, 1, 4 and 2 tokens; gaps of 10, 20 and 30 ms before the last three.
  assert.deepEqual(perTokenGaps([10, 20, 30], [2, 1, 4, 2]), [10, 5, 5, 5, 5, 15, 15]);
});

test("a chunk that carries no token adds no gap: its time joins the next chunk's", () => {
  assert.deepEqual(perTokenGaps([10, 20, 30], [1, 1, 0, 2]), [10, 25, 25]);
  // A trailing chunk without tokens: its time joins nothing.
  assert.deepEqual(perTokenGaps([10, 20], [1, 2, 0]), [5, 5]);
});

test('appends to the pool it is given, and a stream of one chunk adds nothing', () => {
  const pool = [1];
  assert.equal(perTokenGaps([], [5], pool), pool);
  assert.deepEqual(perTokenGaps([8], [1, 2], pool), [1, 4, 4]);
});
