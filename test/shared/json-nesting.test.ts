// The JSON scanners' nesting bound: counted exactly, brackets inside strings not counted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/shared/json-bytes.js';

const bytes = (text: string) => Buffer.from(text);
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

test('nesting is counted exactly: the bound passes, one level more does not', () => {
  assert.equal(nestsDeeperThan(bytes(nested(MAX_JSON_DEPTH)), MAX_JSON_DEPTH), false);
  assert.equal(nestsDeeperThan(bytes(nested(MAX_JSON_DEPTH + 1)), MAX_JSON_DEPTH), true);
  assert.equal(nestsDeeperThan(bytes('{"a":[{"b":[]}]}'), 4), false);
  assert.equal(nestsDeeperThan(bytes('{"a":[{"b":[]}]}'), 3), true);
});

test('brackets inside strings, escaped quotes included, are text, not nesting', () => {
  const deepText = JSON.stringify({ message: `${'['.repeat(100)} \\" {{{ "` });
  assert.equal(nestsDeeperThan(bytes(deepText), 1), false);
  assert.equal(nestsDeeperThan(bytes(`[${deepText}]`), 1), true);
});
