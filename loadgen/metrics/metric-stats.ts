// Mean / median / std / chosen percentiles of one latency series, as vLLM reports them. vLLM computes these
// over `values or 0`: a series with no values (every request failed, or no request had 2+ tokens for TPOT)
// reports zeros rather than nan. We keep that for the vLLM-compatible output and keep `count` so our own
// reports can say "no data" instead.

import { mean, median, percentiles, std } from './numpy-stats.js';

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
  const points = percentiles(series, wanted);
  return {
    count: values.length,
    mean: mean(series),
    median: median(series),
    std: std(series),
    percentiles: wanted.map((p, i) => [p, points[i] as number]),
  };
}
