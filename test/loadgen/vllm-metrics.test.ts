// vLLM's metrics from records: a hand-computed run, goodput and its SLOs, all-failed runs reporting zeros.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  parseGoodput,
  parseMetricPercentiles,
  parsePercentileMetrics,
} from '../../loadgen/metrics/metric-options.js';
import { vllmMetrics } from '../../loadgen/metrics/vllm-metrics.js';
import { UsageError } from '../../src/shared/user-facing-error.js';
import { RECORDS, RUN_DURATION_MS, record } from './helpers/records-fixture.js';

test('aggregates records into vLLM metrics (hand-computed run)', () => {
  const m = vllmMetrics(RECORDS, {
    durationMs: RUN_DURATION_MS,
    metricPercentiles: [99],
    goodput: { ttft: 250, tpot: 60 },
  });
  assert.equal(m.completed, 3);
  assert.equal(m.failed, 1);
  assert.equal(m.totalInput, 60); // the failed request's 40 prompt tokens are not counted
  assert.equal(m.totalOutput, 8);
  assert.equal(m.durationS, 2);
  assert.equal(m.requestThroughput, 1.5);
  assert.equal(m.outputThroughput, 4);
  assert.equal(m.totalTokenThroughput, 34);
  assert.equal(m.requestGoodput, 0.5); // only #1 meets TTFT <= 250 and TPOT <= 60
  assert.equal(m.maxOutputTokensPerS, 6);
  assert.equal(m.maxConcurrentRequests, 1); // #0 [0, 300), #1 [500, 800), #2 [1200, 1500): never two at once
  assert.equal(m.latency.ttft.mean, 200);
  assert.equal(m.latency.tpot.count, 2);
  assert.ok(Math.abs(m.latency.tpot.mean - (200 / 3 + 50) / 2) < 1e-12);
  assert.equal(m.latency.itl.mean, 75);
  assert.deepEqual(m.latency.itl.percentiles, [[99, 100]]);
  assert.equal(m.latency.e2el.std, 0);
});

test('goodput is null unless asked; a one-token request counts as TPOT 0 for the SLO', () => {
  assert.equal(vllmMetrics(RECORDS, { durationMs: 2000, metricPercentiles: [99] }).requestGoodput, null);
  const oneToken = [record({ index: 0, ttftMs: 10, lastTokenMs: 10, outputTokens: 1, contentChunks: 1 })];
  assert.equal(
    vllmMetrics(oneToken, { durationMs: 1000, metricPercentiles: [99], goodput: { tpot: 0 } }).requestGoodput,
    1,
  );
});

test('with every request failed, latency stats are zeros (vLLM reports `values or 0`)', () => {
  const failed = [record({ index: 0, outcome: 'upstream_unreachable', status: null, sentAtMs: 0 })];
  const m = vllmMetrics(failed, { durationMs: 1000, metricPercentiles: [50, 99] });
  assert.equal(m.completed, 0);
  assert.deepEqual(m.latency.ttft, {
    count: 0,
    mean: 0,
    median: 0,
    std: 0,
    percentiles: [
      [50, 0],
      [99, 0],
    ],
  });
  assert.equal(m.maxConcurrentRequests, 0);
});

test('metric flags parse like vLLM and reject what vLLM would silently ignore', () => {
  assert.deepEqual(parsePercentileMetrics('ttft,tpot,itl,e2el'), ['ttft', 'tpot', 'itl', 'e2el']);
  assert.deepEqual(parseMetricPercentiles('25, 50,99.9'), [25, 50, 99.9]);
  assert.deepEqual(parseGoodput(['ttft:200', 'e2el:5000']), { ttft: 200, e2el: 5000 });
  assert.throws(() => parsePercentileMetrics('ttft,tbot'), /unknown metric 'tbot'.*Did you mean tpot/);
  assert.throws(() => parseMetricPercentiles('101'), UsageError);
  assert.throws(() => parseGoodput(['ttft=200']), /NAME:MILLISECONDS/);
  assert.throws(() => parseGoodput(['itl:5']), UsageError);
  assert.throws(() => parseGoodput(['ttft:-1']), UsageError);
});
