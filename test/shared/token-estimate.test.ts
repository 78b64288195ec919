// The built-in token estimate counts words, punctuation, CJK characters and emoji as documented.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { estimateTokens } from '../../src/shared/token-estimate.js';

test('counts words, punctuation, CJK characters and emoji as documented', () => {
  assert.equal(estimateTokens(''), 0);
  assert.equal(estimateTokens('   '), 0);
  assert.equal(estimateTokens('Hello, world!'), 4);
  assert.equal(estimateTokens(' the quick brown fox'), 4);
  assert.equal(estimateTokens('abc中文def'), 4);
  assert.equal(estimateTokens('你好世界'), 4);
  assert.equal(estimateTokens('ok 👍'), 2);
});
