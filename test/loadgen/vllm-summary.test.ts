// vLLM's summary block byte for byte, and its optional rows and sections following the flags.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extraMetrics } from '../../loadgen/metrics/extra-metrics.js';
import { vllmMetrics } from '../../loadgen/metrics/vllm-metrics.js';
import { formatExtraSummary } from '../../loadgen/report/extra-summary.js';
import { formatVllmSummary } from '../../loadgen/report/vllm-summary.js';
import { RECORDS, RUN_DURATION_MS } from './helpers/records-fixture.js';

// Written out from vLLM's print statements ("{:<40} {:<10}", "{:<40} {:<10.2f}", 50-wide centred headers)
// for the run in helpers/records-fixture.ts; note the trailing spaces the 10-wide value column leaves.
const EXPECTED = [
  '============ Serving Benchmark Result ============',
  'Successful requests:                     3         ',
  'Failed requests:                         1         ',
  'Maximum request concurrency:             8         ',
  'Request rate configured (RPS):           2.00      ',
  'Benchmark duration (s):                  2.00      ',
  'Total input tokens:                      60        ',
  'Total generated tokens:                  8         ',
  'Request throughput (req/s):              1.50      ',
  'Request goodput (req/s):                 0.50      ',
  'Output token throughput (tok/s):         4.00      ',
  'Peak output token throughput (tok/s):    6.00      ',
  'Peak concurrent requests:                1.00      ',
  'Total token throughput (tok/s):          34.00     ',
  '---------------Time to First Token----------------',
  'Mean TTFT (ms):                          200.00    ',
  'Median TTFT (ms):                        200.00    ',
  'P50 TTFT (ms):                           200.00    ',
  'P99 TTFT (ms):                           298.00    ',
  'P99.9 TTFT (ms):                         299.80    ',
  '-----Time per Output Token (excl. 1st token)------',
  'Mean TPOT (ms):                          58.33     ',
  'Median TPOT (ms):                        58.33     ',
  'P50 TPOT (ms):                           58.33     ',
  'P99 TPOT (ms):                           66.50     ',
  'P99.9 TPOT (ms):                         66.65     ',
  '---------------Inter-token Latency----------------',
  'Mean ITL (ms):                           75.00     ',
  'Median ITL (ms):                         75.00     ',
  'P50 ITL (ms):                            75.00     ',
  'P99 ITL (ms):                            100.00    ',
  'P99.9 ITL (ms):                          100.00    ',
  '----------------End-to-end Latency----------------',
  'Mean E2EL (ms):                          300.00    ',
  'Median E2EL (ms):                        300.00    ',
  'P50 E2EL (ms):                           300.00    ',
  'P99 E2EL (ms):                           300.00    ',
  'P99.9 E2EL (ms):                         300.00    ',
  '==================================================',
].join('\n');

test('prints the summary byte for byte as vLLM does', () => {
  const metrics = vllmMetrics(RECORDS, {
    durationMs: RUN_DURATION_MS,
    metricPercentiles: [50, 99, 99.9],
    goodput: { ttft: 250, tpot: 60 },
  });
  const text = formatVllmSummary(metrics, {
    maxConcurrency: 8,
    requestRate: 2,
    percentileMetrics: ['ttft', 'tpot', 'itl', 'e2el'],
  });
  assert.equal(text, `${EXPECTED}\n`);
});

test('optional rows and sections follow the flags (rate inf, no concurrency, no goodput, default metrics)', () => {
  const metrics = vllmMetrics(RECORDS, { durationMs: RUN_DURATION_MS, metricPercentiles: [99] });
  const text = formatVllmSummary(metrics, {
    requestRate: Number.POSITIVE_INFINITY,
    percentileMetrics: ['ttft', 'tpot', 'itl'],
  });
  assert.ok(!text.includes('Maximum request concurrency'));
  assert.ok(!text.includes('Request rate configured'));
  assert.ok(!text.includes('goodput'));
  assert.ok(!text.includes('End-to-end Latency'));
  assert.ok(text.includes('P99 ITL (ms):                            100.00    \n'));
  assert.equal(text.split('\n').length, 25); // 24 lines and the final newline
});

test('extra figures use the same row format', () => {
  const text = formatExtraSummary(extraMetrics(RECORDS, [99]));
  assert.ok(text.startsWith('=============== tokenmeter extras ================\n'));
  assert.ok(text.includes('Success rate (%):                        75.00     \n'));
  assert.ok(text.includes('Mean TTFB (ms):                          123.75    \n'));
  assert.ok(text.includes('Requests counted by our tokenizer:       1         \n'));
});
