import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extraMetrics } from '../../loadgen/metrics/extra-metrics.js';
import type { RequestRecord } from '../../loadgen/record.js';
import { DEFAULT_VERDICT_THRESHOLDS, formatVerdicts, verdicts } from '../../loadgen/report/verdicts.js';
import { RECORDS, record } from './helpers/records-fixture.js';

test('failures by kind with the first body, a hint, and the success-rate warning', () => {
  const extra = extraMetrics(RECORDS, [99]);
  assert.deepEqual(
    verdicts(RECORDS, extra).map((v) => v.kind),
    ['failures', 'low-success-rate'],
  );
  // Lags: #1 sent 2 ms late, #3 6 ms late beyond its 4 ms queue wait: p99 5.88 ms, over a 5 ms threshold.
  const list = verdicts(RECORDS, extra, { ...DEFAULT_VERDICT_THRESHOLDS, scheduleLagP99Ms: 5 });
  assert.deepEqual(
    list.map((v) => v.kind),
    ['failures', 'low-success-rate', 'client-bottleneck'],
  );
  assert.equal(
    list[0]?.message,
    [
      'http_error: 1 request (HTTP 404 x1)',
      '  first, request #3: 404 Not Found',
      '  body: {"error": {"message": "no route /v1/v1/completions"}}',
      "  hint (404): wrong URL: check --base-url and --endpoint (a base URL ending in /v1 plus /v1/... gives '/v1/v1')",
    ].join('\n'),
  );
  assert.match(list[1]?.message ?? '', /^success rate 75.0% is below 90.0%/);
  assert.match(list[2]?.message ?? '', /^schedule lag p99 5\.88 ms exceeds 5 ms/);
  assert.ok(formatVerdicts(list).startsWith(`${'-'.repeat(21)}Verdicts${'-'.repeat(21)}\n`));
});

test('TTFT p99 over 3x the median says concurrency is likely too high; a clean run says nothing', () => {
  const fast = (index: number, ttftMs: number): RequestRecord =>
    record({
      index,
      intendedOffsetMs: index,
      sentAtMs: index,
      ttftMs,
      lastTokenMs: ttftMs + 10,
      outputTokens: 2,
      contentChunks: 2,
    });
  const clean = Array.from({ length: 100 }, (_, i) => fast(i, 100 + (i % 10)));
  assert.deepEqual(verdicts(clean, extraMetrics(clean, [99])), []);
  assert.equal(formatVerdicts([]), '');
  const spread = [...clean.slice(0, 95), ...Array.from({ length: 5 }, (_, i) => fast(95 + i, 2000))];
  const list = verdicts(spread, extraMetrics(spread, [99]));
  assert.deepEqual(
    list.map((v) => v.kind),
    ['ttft-spread'],
  );
  assert.match(list[0]?.message ?? '', /concurrency \(or request rate\) is likely too high/);
});
