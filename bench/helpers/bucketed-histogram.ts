// Replays values into a prom-client histogram to get the buckets its exposition would carry, for the
// histogram-error benchmark and its test. The quantile itself is src/shared/prometheus-text.ts.
import { Histogram } from 'prom-client';
import type { CumulativeBucket } from '../../src/shared/prometheus-text.js';

/**
 * Observes `values` in a prom-client Histogram with `bounds` (the gateway's own bucketing: a value equal to a
 * bound falls in that bound's bucket) and returns the cumulative buckets its exposition would carry.
 */
export async function bucketed(
  bounds: readonly number[],
  values: Iterable<number>,
): Promise<CumulativeBucket[]> {
  const histogram = new Histogram({
    name: 'replayed',
    help: 'replayed',
    buckets: [...bounds],
    registers: [],
  });
  for (const value of values) histogram.observe(value);
  const { values: samples } = await histogram.get();
  return samples
    .filter((s) => s.metricName === 'replayed_bucket')
    .map((s) => ({
      le: s.labels['le'] === '+Inf' ? Number.POSITIVE_INFINITY : Number(s.labels['le']),
      count: s.value,
    }));
}
