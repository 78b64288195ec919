// The verdicts: failures with their bodies and hints, the TTFT spread and long prompts, lag against the cap.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extraMetrics } from '../../loadgen/metrics/extra-metrics.js';
import type { RequestRecord } from '../../loadgen/record.js';
import { DEFAULT_VERDICT_THRESHOLDS, formatVerdicts, verdicts } from '../../loadgen/report/verdicts.js';
import { DOUBLED_V1 } from '../../src/shared/upstream-hints.js';
import { RECORDS, record } from './helpers/records-fixture.js';

test('failures by kind with the first body, a hint, and the success-rate warning', () => {
  const extra = extraMetrics(RECORDS, [99]);
  // #3 waited 4 ms for a slot: one request in four, over the 10% share, so the cap is named with its numbers.
  assert.deepEqual(
    verdicts(RECORDS, extra).map((v) => v.kind),
    ['failures', 'low-success-rate', 'concurrency-cap'],
  );
  // Lags of the requests due after t = 0: #1 2 ms, #2 0, #3 6 ms beyond its 4 ms queue wait: p99 5.92 ms, over
  // a 5 ms threshold (#0, due at t = 0 with no wait, had no pace to keep).
  const list = verdicts(RECORDS, extra, { ...DEFAULT_VERDICT_THRESHOLDS, scheduleLagP99Ms: 5 });
  assert.deepEqual(
    list.map((v) => v.kind),
    ['failures', 'low-success-rate', 'client-bottleneck', 'concurrency-cap'],
  );
  assert.equal(
    list[0]?.message,
    [
      'http_error: 1 request (HTTP 404 x1)',
      '  first, request #3: 404 Not Found',
      '  body: {"error": {"message": "no route /v1/v1/completions"}}',
      `  hint (404): wrong URL: check --base-url and --endpoint (${DOUBLED_V1.what}: ${DOUBLED_V1.fix})`,
    ].join('\n'),
  );
  assert.match(list[1]?.message ?? '', /^success rate 75.0% \(3 of 4\) is below 90.0%/);
  assert.match(
    list[2]?.message ?? '',
    /^schedule lag p99 5\.92 ms exceeds 5 ms \(median 2\.00 ms; 1 of 3 requests left more than 5 ms/,
  );
  assert.match(
    list[3]?.message ?? '',
    /^--max-concurrency set the load: 1 of 4 requests \(25\.0%\) waited for a free slot \(client queue median 4\.00 ms/,
  );
  assert.ok(formatVerdicts(list).startsWith(`${'-'.repeat(21)}Verdicts${'-'.repeat(21)}\n`));
});

test('TTFT p99 over 3x the median on the long prompts says so, by their correlation; a clean run says nothing', () => {
  const fast = (index: number, ttftMs: number): RequestRecord =>
    record({
      index,
      intendedOffsetMs: index,
      sentAtMs: index,
      ttftMs,
      lastTokenMs: ttftMs + 10,
      outputTokens: 2,
      contentChunks: 2,
      // The slow ones carry the longest prompts, as on the run the issue reports.
      promptTokens: ttftMs > 1000 ? 4000 : 100,
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
  assert.equal(
    list[0]?.message,
    'TTFT p99 2000.00 ms is 19.1x the median 104.50 ms: 5 of 100 requests took over 3x the median.\n' +
      "The slow TTFTs are the long prompts: TTFT rises with prompt length (r = 1.00); the slow requests' prompts " +
      "4000-4000 tokens (mean 4000), the others' mean 100 tokens.",
  );
  assert.doesNotMatch(list[0]?.message ?? '', /queueing|too high/);
});

test('an inf burst under a cap: its dispatch is not lateness, the cap is named; a late paced send is', () => {
  // 64 sent at t = 0 over 15 ms of dispatch (no pace to keep), then 236 each sent 0.1 ms after a slot freed.
  const burst = Array.from({ length: 64 }, (_, i) =>
    record({ index: i, intendedOffsetMs: 0, sentAtMs: (i * 15) / 63, ttftMs: 50 }),
  );
  const waited = Array.from({ length: 236 }, (_, i) =>
    record({ index: 64 + i, intendedOffsetMs: 0, sentAtMs: 60 + i + 0.1, clientQueueMs: 60 + i, ttftMs: 50 }),
  );
  const capped = [...burst, ...waited];
  assert.deepEqual(
    verdicts(capped, extraMetrics(capped, [99])).map((v) => v.kind),
    ['concurrency-cap'],
  );
  // The same lateness on a paced schedule (due at 10 ms steps) is the load generator's.
  const paced = burst.map((r, i) => ({
    ...r,
    intendedOffsetMs: 10 * i,
    sentAtMs: 10 * i + (r.sentAtMs ?? 0),
  }));
  assert.deepEqual(
    verdicts(paced, extraMetrics(paced, [99])).map((v) => v.kind),
    ['client-bottleneck'],
  );
});
