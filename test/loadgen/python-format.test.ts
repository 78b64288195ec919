// Python's number formatting reproduced for vLLM's summary: {:.2f}, str(float), padding and centring.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  centre,
  fixed2,
  padRight,
  percentileWord,
  pythonFloatStr,
} from '../../loadgen/report/python-format.js';

test("fixed2 is Python's {:.2f}, including half-to-even on exact binary ties", () => {
  assert.equal(fixed2(0.125), '0.12');
  assert.equal(fixed2(0.375), '0.38');
  assert.equal(fixed2(-0.125), '-0.12');
  assert.equal(fixed2(2.675), '2.67'); // binary value is below the tie
  assert.equal(fixed2(1.005), '1.00');
  assert.equal(fixed2(1234.5), '1234.50');
  assert.equal(fixed2(Number.NaN), 'nan');
  assert.equal(fixed2(Number.POSITIVE_INFINITY), 'inf');
});

test('pythonFloatStr is str(float)', () => {
  assert.equal(pythonFloatStr(1), '1.0');
  assert.equal(pythonFloatStr(0.5), '0.5');
  assert.equal(pythonFloatStr(1e-5), '1e-05');
  assert.equal(pythonFloatStr(2.5e-4), '0.00025');
  assert.equal(pythonFloatStr(1e16), '1e+16');
  assert.equal(pythonFloatStr(1234567890123456), '1234567890123456.0');
  assert.equal(pythonFloatStr(123.456), '123.456');
  assert.equal(pythonFloatStr(Number.POSITIVE_INFINITY), 'inf');
  assert.equal(pythonFloatStr(0), '0.0');
});

test('padding, centring and percentile labels', () => {
  assert.equal(padRight('ab', 5), 'ab   ');
  assert.equal(padRight('abcdef', 3), 'abcdef');
  assert.equal(
    centre('Time to First Token', 50, '-'),
    `${'-'.repeat(15)}Time to First Token${'-'.repeat(16)}`,
  );
  assert.equal(
    centre(' Serving Benchmark Result ', 50, '='),
    `${'='.repeat(12)} Serving Benchmark Result ${'='.repeat(12)}`,
  );
  assert.equal(percentileWord(99), '99');
  assert.equal(percentileWord(99.9), '99.9');
  assert.equal(percentileWord(50), '50');
});
