// numpy's statistics reproduced: linear percentiles, mean, population std, median, pairwise summation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mean, median, percentile, percentiles, std, sum } from '../../loadgen/metrics/numpy-stats.js';

// Expected values printed by numpy 2.4 (repr of np.percentile / np.mean / np.std / np.median).
const SMALL = [3.1, 0.2, 7.5, 1.25, 9.0, 4.4, 2.0];

test('percentiles match numpy linear interpolation exactly', () => {
  assert.equal(percentile(SMALL, 99), 8.91);
  assert.equal(percentile(SMALL, 50), 3.1);
  assert.equal(percentile(SMALL, 25), 1.625);
  assert.equal(percentile(SMALL, 99.9), 8.991000000000001);
  assert.equal(percentile(SMALL, 0), 0.2);
  assert.equal(percentile(SMALL, 100), 9.0);
  assert.deepEqual(percentiles([10, 20, 30, 40], [99, 90]), [39.699999999999996, 37.0]);
});

test('mean, population std and median match numpy', () => {
  assert.equal(mean(SMALL), 3.9214285714285717);
  assert.equal(std(SMALL), 3.027948049051552);
  assert.equal(median(SMALL), 3.1);
  assert.equal(median([10, 20, 30, 40]), 25);
  assert.equal(std([10, 20, 30, 40]), 11.180339887498949);
});

test('long series use numpy pairwise summation (naive summation differs in the last digits)', () => {
  const series = Array.from({ length: 1000 }, (_, i) => ((i * 7919) % 1000) / 7 + 0.1);
  assert.equal(mean(series), 71.45714285714286);
  assert.equal(std(series), 41.239284322458495);
  assert.equal(percentile(series, 99), 141.38714285714283);
  assert.equal(percentile(series, 99.9), 142.67157142857144);
  assert.equal(median(series), 71.45714285714286);
  let naive = 0;
  for (const v of series) naive += v;
  assert.notEqual(naive, sum(series));
});

test('empty input gives NaN like numpy, and out-of-range percentiles are refused', () => {
  assert.ok(Number.isNaN(mean([])));
  assert.ok(Number.isNaN(percentile([], 50)));
  assert.throws(() => percentile([1], 101), RangeError);
});
