// How far PromQL's histogram_quantile lands from the exact percentile of the same values: for recorded traffic
// (bench/histogram-error.ts) and for synthetic spreads swept across a bucket ladder's whole range (the same
// sweep bounds the error in test/observability/histogram-buckets.test.ts). "Exact" is numpy's linear
// percentile, the one every tokenmeter report prints.
import { percentiles } from '../../loadgen/metrics/numpy-stats.js';
import { histogramQuantile } from '../../src/shared/prometheus-text.js';
import { SeededRandom } from '../../src/shared/random.js';
import { bucketed } from './bucketed-histogram.js';

export const QUANTILES = [0.5, 0.99] as const;

export interface QuantileError {
  readonly q: number;
  readonly exact: number;
  readonly promql: number;
  /** |promql / exact - 1|. */
  readonly relativeError: number;
}

/** PromQL's and the exact p50 and p99 of `values` (seconds), bucketed with `bounds`. */
export async function quantileErrors(
  bounds: readonly number[],
  values: readonly number[],
): Promise<QuantileError[]> {
  const buckets = await bucketed(bounds, values);
  const exact = percentiles(
    values,
    QUANTILES.map((q) => q * 100),
  );
  return QUANTILES.map((q, i) => {
    const promql = histogramQuantile(q, buckets);
    const exactValue = exact[i] as number;
    return { q, exact: exactValue, promql, relativeError: Math.abs(promql / exactValue - 1) };
  });
}

/** The worst error met in a sweep, and the median of the spread that met it. */
export interface WorstError {
  readonly q: number;
  readonly relativeError: number;
  readonly atMedian: number;
}

/** Samples per synthetic spread: enough that 1% of them (the p99's tail) is 20 values. */
const SAMPLES_PER_SPREAD = 2000;
/** Medians placed every 1/7 decade: not a divisor of the ladder's 20 steps, so they fall all over its buckets. */
const MEDIANS_PER_DECADE = 7;

/**
 * Log-normal spreads of width `sigma` (natural log; 0.05 is +-5% around the median, 1 a factor of 10 between
 * p50 and p99) with medians swept across `bounds`, kept far enough inside that the spread's p99 and p1 stay
 * within the ladder. Returns the worst relative error per quantile.
 */
export async function worstErrorAcrossRange(bounds: readonly number[], sigma: number): Promise<WorstError[]> {
  const random = new SeededRandom(`spread ${sigma}`);
  const margin = Math.exp(3 * sigma);
  const from = Math.log10((bounds[0] as number) * margin);
  const to = Math.log10((bounds.at(-1) as number) / margin);
  const worst: WorstError[] = QUANTILES.map((q) => ({ q, relativeError: 0, atMedian: Number.NaN }));
  for (let exponent = from; exponent <= to; exponent += 1 / MEDIANS_PER_DECADE) {
    const median = 10 ** exponent;
    const values = Array.from(
      { length: SAMPLES_PER_SPREAD },
      () => median * Math.exp(sigma * random.normal()),
    );
    for (const [i, error] of (await quantileErrors(bounds, values)).entries()) {
      const current = worst[i] as WorstError;
      if (error.relativeError > current.relativeError) {
        worst[i] = { q: error.q, relativeError: error.relativeError, atMedian: median };
      }
    }
  }
  return worst;
}
