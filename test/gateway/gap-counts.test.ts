// A request's gap counts (src/gateway/records/record.ts, from the meter's bucket counts) and the histogram fed
// with them (counted-histogram.ts) show exactly what prom-client's own Histogram shows for the same gaps observed
// one by one: same buckets (a gap on a bound counts in that bucket, `le` is inclusive), same sum and count, same
// exposition.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Histogram, Registry } from 'prom-client';
import { CountedHistogram } from '../../src/gateway/metrics/counted-histogram.js';
import { GAP_BUCKET_LABELS, gapCountsOf } from '../../src/gateway/records/record.js';
import { StreamMeter } from '../../src/measure/stream-meter.js';
import type { GapSummary } from '../../src/measure/stream-timing.js';
import { openAiChatClassifier } from '../../src/protocols/openai-chat/stream-classifier.js';
import { PER_TOKEN_BUCKETS_S } from '../../src/shared/latency-buckets.js';

const CONTENT_EVENT = Buffer.from('data: {"choices":[{"delta":{"content":"a"}}]}\n\n');

/**
 * A stream whose content events are `gapsMs` apart, metered from t = 0: its gap summary, and the gaps as the meter
 * saw them (differences of the stamps, which floating point may round), for prom-client to observe the same.
 */
function metered(gapsMs: readonly number[]): { summary: GapSummary; seenMs: number[] } {
  const meter = new StreamMeter({ classifier: openAiChatClassifier });
  let at = 0;
  meter.onBytes(CONTENT_EVENT, at);
  const seenMs: number[] = [];
  for (const gap of gapsMs) {
    const next = at + gap;
    meter.onBytes(CONTENT_EVENT, next);
    seenMs.push(next - at);
    at = next;
  }
  return { summary: meter.result().contentGaps, seenMs };
}

test('gap counts: non-zero buckets by le, a gap on a bound in that bucket, above the last in +Inf', () => {
  // 0.1 ms is the first bound exactly; 40 ms lies between bounds; 20 s is beyond 10 s.
  const counts = gapCountsOf(metered([0.1, 40, 40, 20_000]).summary);
  assert.ok(counts !== null);
  const above40 = PER_TOKEN_BUCKETS_S.find((b) => b >= 0.04) as number;
  assert.deepEqual(counts.counts, { '0.0001': 1, [String(above40)]: 2, '+Inf': 1 });
  assert.ok(Math.abs(counts.sumMs - 20_080.1) < 1e-9, String(counts.sumMs));
  assert.equal(gapCountsOf(metered([]).summary), null);
  assert.equal(gapCountsOf(undefined), null);
  assert.equal(GAP_BUCKET_LABELS.at(-1), '+Inf');
});

test('a histogram fed gap counts shows what prom-client shows for the same gaps observed one by one', async () => {
  const requests = [
    [0.05, 0.1, 0.1001, 3, 16.4, 16.4, 40],
    [9_999, 10_000, 10_001, 250_000],
    [1.122, 1.1221, 0.0001],
  ];
  const counted = new Registry();
  const single = new Registry();
  const name = 'tokenmeter_inter_token_gap_seconds';
  const help = 'gaps';
  const ours = new CountedHistogram(name, help, GAP_BUCKET_LABELS, counted);
  const theirs = new Histogram({
    name,
    help,
    labelNames: ['upstream', 'model', 'role'],
    buckets: [...PER_TOKEN_BUCKETS_S],
    registers: [single],
  });
  for (const [i, gaps] of requests.entries()) {
    const labels = { upstream: 'u', model: `m${i % 2}`, role: 'primary' };
    const { summary, seenMs } = metered(gaps);
    const counts = gapCountsOf(summary);
    assert.ok(counts !== null);
    ours.series(labels).add(counts.counts, counts.sumMs / 1000);
    for (const ms of seenMs) theirs.labels(labels).observe(ms / 1000);
  }
  // Sums are added in another order: equal to the last few bits, so compared as numbers, the rest as text.
  const lines = (text: string): string[] => text.split('\n').filter((l) => !l.includes('_sum'));
  const sums = (text: string): number[] =>
    text
      .split('\n')
      .filter((l) => l.includes('_sum'))
      .map((l) => Number(l.split(' ').at(-1)));
  const [a, b] = [await counted.metrics(), await single.metrics()];
  assert.deepEqual(lines(a), lines(b));
  const [sa, sb] = [sums(a), sums(b)];
  assert.equal(sa.length, 2);
  for (const [i, sum] of sa.entries())
    assert.ok(Math.abs(sum - (sb[i] as number)) < 1e-9, `${sum} vs ${sb[i]}`);
});

test('observed one at a time, the histogram shows what prom-client shows; an unobserved label set is absent', async () => {
  const bounds = [0.005, 0.01, 0.1, 1];
  const observations: [string, number][] = [
    ['a', 0.005], // on a bound: that bucket
    ['a', 0.0051],
    ['b', 0],
    ['a', 1],
    ['b', 7.5], // above the last bound: +Inf only
    ['a', 0.02],
  ];
  const ours = new Registry();
  const single = new Registry();
  const name = 'tokenmeter_time_to_first_byte_seconds';
  const histogram = new CountedHistogram(name, 'ttfb', [...bounds.map(String), '+Inf'], ours);
  const theirs = new Histogram({
    name,
    help: 'ttfb',
    labelNames: ['upstream'],
    buckets: bounds,
    registers: [single],
  });
  const observers = new Map(['a', 'b', 'never'].map((u) => [u, histogram.observer({ upstream: u })]));
  for (const [upstream, value] of observations) {
    observers.get(upstream)?.observe(value);
    theirs.labels(upstream).observe(value);
  }
  assert.equal(await ours.metrics(), await single.metrics());
  assert.doesNotMatch(await ours.metrics(), /never/);
  assert.throws(() => observers.get('a')?.observe(Number.NaN), TypeError);
});
