// Mean / median / std / chosen percentiles of one latency series, as vLLM reports them. vLLM computes these
// over `values or 0`: a series with no values (every request failed, or no request had 2+ tokens for TPOT)
// reports zeros rather than nan. We keep that for the vLLM-compatible output and keep `count` so our own
// reports can say "no data" instead.

import { mean, medianOfSorted, percentilesOfSorted, sortedCopy, std } from './numpy-stats.js';

export interface MetricStats {
  count: number;
  mean: number;
  median: number;
  std: number;
  /** [percentile, value] in the order asked for. */
  percentiles: Array<[number, number]>;
}

export function metricStats(values: readonly number[], wanted: readonly number[]): MetricStats {
  const series = values.length === 0 ? [0] : values;
  // One sort for the median and every percentile: an inter-token series holds one value per token of the run.
  const sorted = sortedCopy(series);
  const points = percentilesOfSorted(sorted, wanted);
  return {
    count: values.length,
    mean: mean(series),
    median: medianOfSorted(sorted),
    std: std(series),
    percentiles: wanted.map((p, i) => [p, points[i] as number]),
  };
}
