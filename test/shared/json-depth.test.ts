// The depth scan that guards JSON.parse: brackets inside strings (escaped quotes included) do not count, the
// bound is exact, and bodies that are not a JSON container are left to their own content type.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonNestsDeeperThan, looksLikeJsonContainer } from '../../src/shared/json-depth.js';

const bytes = (text: string) => Buffer.from(text);

test('the depth is counted exactly: n levels pass a bound of n, fail a bound of n - 1', () => {
  const three = bytes('{"a":[{"b":1}]}');
  assert.equal(jsonNestsDeeperThan(three, 3), false);
  assert.equal(jsonNestsDeeperThan(three, 2), true);
  assert.equal(jsonNestsDeeperThan(bytes('[[],[],[[]]]'), 3), false);
});

test('brackets inside strings do not count, an escaped quote does not end the string', () => {
  assert.equal(jsonNestsDeeperThan(bytes(`{"a":"${'['.repeat(100)}"}`), 1), false);
  assert.equal(jsonNestsDeeperThan(bytes(`{"a":"say \\"[[[[\\" \\\\","b":1}`), 1), false);
  // After an escaped backslash the quote does end the string: the brackets after it count.
  assert.equal(jsonNestsDeeperThan(bytes('{"a":"x\\\\",  "b":[[[]]]}'), 3), true);
  assert.equal(jsonNestsDeeperThan(bytes('{"unterminated":"[[[['), 1), false);
});

test('only bodies that open with an object or array are judged as JSON', () => {
  assert.equal(looksLikeJsonContainer(bytes('  \n{"a":1}')), true);
  assert.equal(looksLikeJsonContainer(bytes('[1]')), true);
  assert.equal(looksLikeJsonContainer(bytes('--boundary\r\n[[[[')), false);
  assert.equal(looksLikeJsonContainer(bytes('   ')), false);
});
