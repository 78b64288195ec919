// The resampling behind `compare`'s intervals, kept apart from what is resampled (request-samples.ts) and from
// the comparison itself. Two schemes, both seeded so the same files always give the same intervals:
// - requests: a run's requests are drawn with replacement, as many as it has, and every figure of the run
//   (latency means and percentiles, success) is computed on the same resample. A request's values stay together:
//   the ITL gaps of one request are drawn as one unit, since the gaps of one stream are not independent.
// - time windows: a rate (completed per second, tokens per second) is not a per-request figure, so the run's
//   duration is cut into equal windows and runs of adjacent windows (circular blocks) are drawn with replacement;
//   blocks keep the correlation between neighbouring windows (a queue that builds up spans several).
// Intervals are percentile intervals of the replicates; a difference's interval comes from the differences of
// independent replicates of the two runs (each run has its own seed).

import { SeededRandom } from '../../src/shared/random.js';

/** Resamples per figure: enough for stable 2.5% / 97.5% ends (50 replicates beyond each). */
export const RESAMPLES = 2000;
export const CONFIDENCE = 0.95;
/** Windows a run's duration is cut into for rates, and how many adjacent ones are drawn together. */
export const RATE_WINDOWS = 20;
export const RATE_BLOCK = 3;

/** Values owned by requests, sorted ascending; `owners[i]` is the request (0..requests-1) that value i belongs to. */
export interface RequestValues {
  readonly values: Float64Array;
  readonly owners: Uint32Array;
}

export type Statistic =
  | { readonly kind: 'mean' }
  | { readonly kind: 'sum' }
  | { readonly kind: 'percentile'; readonly p: number };

/** One figure to resample: a statistic of values owned by requests. */
export interface RequestFigure {
  readonly sample: RequestValues;
  readonly statistic: Statistic;
}

export interface Interval {
  readonly low: number;
  readonly high: number;
}

/** numpy's linear percentile of `sorted`, with (n - 1) x p/100 between neighbours. */
function sortedPercentile(sorted: Float64Array, p: number): number {
  const h = (sorted.length - 1) * (p / 100);
  const lo = Math.floor(h);
  const a = sorted[lo] as number;
  const b = sorted[Math.min(lo + 1, sorted.length - 1)] as number;
  return a + (b - a) * (h - lo);
}

/** The central CONFIDENCE interval of a set of replicates (a resample with no value for the figure is left out). */
export function percentileInterval(replicates: Float64Array): Interval {
  const sorted = replicates.filter((value) => !Number.isNaN(value)).sort();
  if (sorted.length === 0) return { low: Number.NaN, high: Number.NaN };
  const tail = ((1 - CONFIDENCE) / 2) * 100;
  return { low: sortedPercentile(sorted, tail), high: sortedPercentile(sorted, 100 - tail) };
}

/** The interval of `b - a`, replicate by replicate (independent resamples of two runs). */
export function differenceInterval(a: Float64Array, b: Float64Array): Interval {
  const differences = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) differences[i] = (b[i] as number) - (a[i] as number);
  return percentileInterval(differences);
}

/**
 * The statistic of the multiset where value i appears `counts[owners[i]]` times. Percentiles are numpy's linear
 * ones over that multiset, found by walking the sorted values once instead of sorting a resample.
 */
function weightedStatistic(sample: RequestValues, counts: Uint32Array, statistic: Statistic): number {
  const { values, owners } = sample;
  let total = 0;
  let weighted = 0;
  for (let i = 0; i < values.length; i++) {
    const w = counts[owners[i] as number] as number;
    total += w;
    weighted += w * (values[i] as number);
  }
  if (statistic.kind === 'sum') return weighted;
  if (total === 0) return Number.NaN;
  if (statistic.kind === 'mean') return weighted / total;
  const h = (total - 1) * (statistic.p / 100);
  const lo = Math.floor(h);
  let below = 0;
  let lower = Number.NaN;
  for (let i = 0; i < values.length; i++) {
    below += counts[owners[i] as number] as number;
    if (Number.isNaN(lower) && below > lo) lower = values[i] as number;
    if (below > lo + 1 || (below > lo && h === lo)) {
      const upper = values[i] as number;
      return lower + (upper - lower) * (h - lo);
    }
  }
  return lower;
}

/**
 * RESAMPLES replicates of every figure, each resample of the run's `requests` shared by all figures (one set of
 * draws per resample, then one walk per figure).
 */
export function requestReplicates(
  requests: number,
  figures: readonly RequestFigure[],
  seed: number,
): Float64Array[] {
  const random = new SeededRandom(seed);
  const out = figures.map(() => new Float64Array(RESAMPLES));
  const counts = new Uint32Array(requests);
  for (let r = 0; r < RESAMPLES; r++) {
    counts.fill(0);
    for (let k = 0; k < requests; k++) {
      const drawn = Math.floor(random.next() * requests);
      counts[drawn] = (counts[drawn] as number) + 1;
    }
    figures.forEach((figure, f) => {
      (out[f] as Float64Array)[r] = weightedStatistic(figure.sample, counts, figure.statistic);
    });
  }
  return out;
}

/**
 * RESAMPLES replicates of a rate: `windowSums` (RATE_WINDOWS equal windows covering `durationS`) resampled as
 * circular blocks of RATE_BLOCK adjacent windows, summed and divided by the duration.
 */
export function rateReplicates(windowSums: Float64Array, durationS: number, seed: number): Float64Array {
  const random = new SeededRandom(seed);
  const windows = windowSums.length;
  const out = new Float64Array(RESAMPLES);
  for (let r = 0; r < RESAMPLES; r++) {
    let total = 0;
    for (let taken = 0; taken < windows; ) {
      const start = Math.floor(random.next() * windows);
      for (let j = 0; j < RATE_BLOCK && taken < windows; j++, taken++) {
        total += windowSums[(start + j) % windows] as number;
      }
    }
    out[r] = total / durationS;
  }
  return out;
}
