// The body scan's depth rule (src/gateway/request-path/body-scan.ts): brackets inside strings (escaped quotes
// included) do not count, the bound is exact, and bodies that are not a JSON object or array are left to their own
// content type.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scanWhole } from '../../src/gateway/request-path/body-scan.js';
import { MAX_JSON_DEPTH } from '../../src/shared/json-bytes.js';

const bytes = (text: string) => Buffer.from(text);
const TOO_DEEP = /more than 64 levels deep/;
/** `{"a":[[...]]}` nesting `depth` levels in all, the object included. */
const nested = (depth: number) => bytes(`{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`);

test('the depth is counted exactly: MAX_JSON_DEPTH levels pass, one more is refused', () => {
  assert.notEqual(scanWhole(nested(MAX_JSON_DEPTH)).finish(), null);
  assert.throws(() => scanWhole(nested(MAX_JSON_DEPTH + 1)), TOO_DEEP);
  assert.equal(scanWhole(bytes('[[],[],[[]]]')).finish(), null, 'an array: judged for depth, not an object');
});

test('brackets inside strings do not count, an escaped quote does not end the string', () => {
  const deep = '['.repeat(MAX_JSON_DEPTH + 1);
  assert.notEqual(scanWhole(bytes(`{"a":"${deep}"}`)).finish(), null);
  assert.notEqual(scanWhole(bytes(`{"a":"say \\"${deep}\\" \\\\","b":1}`)).finish(), null);
  // After an escaped backslash the quote does end the string: the brackets after it count.
  assert.throws(() => scanWhole(bytes(`{"a":"x\\\\",  "b":${deep}}`)), TOO_DEEP);
  assert.equal(scanWhole(bytes(`{"unterminated":"${deep}`)).finish(), null);
});

test('only bodies that open with an object or array are judged as JSON', () => {
  const deep = '['.repeat(MAX_JSON_DEPTH + 1);
  assert.throws(() => scanWhole(bytes(`  \n{"a":${deep}`)), TOO_DEEP);
  assert.throws(() => scanWhole(bytes(`[${deep}`)), TOO_DEEP);
  assert.equal(scanWhole(bytes(`--boundary\r\n${deep}`)).finish(), null);
  assert.equal(scanWhole(bytes('   ')).finish(), null);
});
