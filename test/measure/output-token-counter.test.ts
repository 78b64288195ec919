// The output token counter: counted in pieces, the total is the whole text's estimate, wherever it is cut.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OutputTokenCounter } from '../../src/measure/output-token-counter.js';
import { estimateTokens } from '../../src/shared/token-estimate.js';

const TEXTS = [
  'Hello, world! The quick brown fox_2 jumps.',
  'abc中文def 你好世界 ok 👍 done',
  'naïve café, Ελληνικά und Übergrößen; 12345 apples',
  '  spaced   out\n\nlines\t',
];

test('counted in pieces, the total equals estimateTokens of the whole text, wherever it is cut', () => {
  for (const text of TEXTS) {
    const points = [...text].length;
    const chars = [...text];
    for (let a = 0; a <= points; a++) {
      for (let b = a; b <= points; b++) {
        const counter = new OutputTokenCounter();
        let added = 0;
        for (const piece of [chars.slice(0, a), chars.slice(a, b), chars.slice(b)])
          added += counter.add(piece.join(''));
        assert.equal(counter.total, estimateTokens(text), `${JSON.stringify(text)} cut at ${a}, ${b}`);
        assert.equal(added, counter.total);
      }
    }
  }
});

test('a word continued in the next piece adds no token', () => {
  const counter = new OutputTokenCounter();
  assert.equal(counter.add('Hel'), 1);
  assert.equal(counter.add('lo'), 0);
  assert.equal(counter.add(' world'), 1);
  assert.equal(counter.total, 2);
});
