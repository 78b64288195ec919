// The resampler's arithmetic against brute force: replaying its seeded draws, every replicate's percentile, mean
// and sum must equal numpy's on the resample written out in full (the resampler walks sorted values with counts
// instead of sorting each resample). A request with several values (pooled gaps) is drawn as one unit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RESAMPLES, requestReplicates } from '../../loadgen/compare/bootstrap.js';
import { requestValues } from '../../loadgen/compare/request-samples.js';
import { percentile } from '../../loadgen/metrics/numpy-stats.js';
import { SeededRandom } from '../../src/shared/random.js';
import { okRecord } from '../report/helpers/synthetic-run.js';

const random = new SeededRandom(42);
// 37 requests with 0-5 gaps each of 1-100 ms, and ties (whole numbers) so rank boundaries fall inside repeats.
const records = Array.from({ length: 37 }, (_, i) =>
  okRecord(
    i,
    i * 10,
    10 + i,
    Array.from({ length: i % 6 }, () => 1 + Math.floor(random.next() * 100)),
  ),
);

test('each replicate equals numpy on the resample written out, gaps drawn with their request', () => {
  const sample = requestValues(records, 'itl');
  const statistics = [
    { kind: 'percentile', p: 10 },
    { kind: 'percentile', p: 50 },
    { kind: 'percentile', p: 90 },
    { kind: 'percentile', p: 99 },
    { kind: 'mean' },
    { kind: 'sum' },
  ] as const;
  const replicates = requestReplicates(
    records.length,
    statistics.map((statistic) => ({ sample, statistic })),
    7,
  );
  assert.equal(replicates[0]?.length, RESAMPLES);
  const replay = new SeededRandom(7);
  for (let r = 0; r < 50; r++) {
    const drawn = Array.from({ length: records.length }, () => Math.floor(replay.next() * records.length));
    const gaps = drawn.flatMap((i) => records[i]?.itlMs ?? []);
    const expected = [
      ...[10, 50, 90, 99].map((p) => percentile(gaps, p)),
      gaps.reduce((a, b) => a + b, 0) / gaps.length,
      gaps.reduce((a, b) => a + b, 0),
    ];
    expected.forEach((value, s) => {
      assert.ok(Math.abs((replicates[s]?.[r] as number) - value) < 1e-9, `resample ${r}, statistic ${s}`);
    });
  }
});

test('the same seed gives the same replicates; another seed others', () => {
  const figures = [{ sample: requestValues(records, 'ttft'), statistic: { kind: 'mean' } as const }];
  const a = requestReplicates(records.length, figures, 1)[0];
  assert.deepEqual(a, requestReplicates(records.length, figures, 1)[0]);
  assert.notDeepEqual(a, requestReplicates(records.length, figures, 2)[0]);
});
