// The meter's gap bucket counts equal prom-client's for the same gaps, at the bounds and their neighbours.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Histogram, Registry } from 'prom-client';
import { GAP_BUCKET_BOUNDS_S, gapBucketIndex } from '../../src/measure/gap-buckets.js';
import { StreamMeter } from '../../src/measure/stream-meter.js';
import { openAiChatClassifier } from '../../src/protocols/openai-chat/stream-classifier.js';
import { SeededRandom } from '../../src/shared/random.js';
import { bytes } from '../sse/collect-events.js';
import { chatChunk, delta } from './classify.js';

// prom-client's cumulative bucket counts of a histogram with the gap buckets after observing `gapsMs` in seconds.
async function promClientCounts(gapsMs: readonly number[]): Promise<number[]> {
  const registry = new Registry();
  const histogram = new Histogram({
    name: 'gap_seconds',
    help: 'gaps',
    buckets: [...GAP_BUCKET_BOUNDS_S],
    registers: [registry],
  });
  for (const ms of gapsMs) histogram.observe(ms / 1000);
  const metric = await histogram.get();
  return metric.values.filter((v) => v.metricName === 'gap_seconds_bucket').map((v) => v.value);
}

function cumulative(counts: readonly number[]): number[] {
  let total = 0;
  return counts.map((count) => {
    total += count;
    return total;
  });
}

test("the meter's bucket counts are prom-client's for the same gaps, bounds and their neighbours included", async () => {
  const random = new SeededRandom(19);
  const wantedMs: number[] = [0, 1e9];
  for (const bound of GAP_BUCKET_BOUNDS_S) {
    const ms = bound * 1000;
    wantedMs.push(ms, ms * (1 + 1e-9), ms * (1 - 1e-9));
  }
  // Log-uniform from 10 microseconds to 100 s, past both ends of the ladder.
  for (let i = 0; i < 5000; i++) wantedMs.push(10 ** (-2 + 7 * random.next()));

  // The meter's gap is the difference of two stamps, (at + gap) - at, which floating point may round: prom-client
  // is fed those same differences.
  const meter = new StreamMeter({ classifier: openAiChatClassifier });
  const event = bytes(`data: ${chatChunk([delta({ content: 'a' })])}\n\n`);
  const gapsMs: number[] = [];
  let at = 1000;
  meter.onBytes(event, at);
  for (const gap of wantedMs) {
    const next = at + gap;
    meter.onBytes(event, next);
    gapsMs.push(next - at);
    at = next;
  }
  const counts = meter.result().contentGaps.bucketCounts;
  assert.equal(counts.length, GAP_BUCKET_BOUNDS_S.length + 1);
  // prom-client lists the bounds then +Inf, cumulatively.
  assert.deepEqual(cumulative(counts), await promClientCounts(gapsMs));
});

test('gapBucketIndex at the ends of the ladder', () => {
  assert.equal(gapBucketIndex(0), 0);
  assert.equal(gapBucketIndex(-1), 0);
  assert.equal(gapBucketIndex((GAP_BUCKET_BOUNDS_S[0] as number) * 1000), 0);
  assert.equal(gapBucketIndex(1e7), GAP_BUCKET_BOUNDS_S.length);
});
