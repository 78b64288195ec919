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

/**
 * Resamples per figure: 25 replicates beyond each end of a 95% interval, and a comparison of two 10,000-request
 * runs in about a second of CPU (bench/compare-bootstrap.ts; docs/reports.md).
 */
export const RESAMPLES = 1000;
export const CONFIDENCE = 0.95;
/** Windows a run's duration is cut into for rates, and how many adjacent ones are drawn together. */
export const RATE_WINDOWS = 20;
export const RATE_BLOCK = 3;

/**
 * Values owned by requests. `values` are sorted ascending, `owners[i]` the request (0..requests-1) value i belongs
 * to; they may be a thinned subset of the values (for percentiles of very many pooled gaps). Per request: how many
 * of `values` it owns, and the count and sum of all its values, so means and sums of a resample cost one pass
 * over the requests, not over the values.
 */
export interface RequestValues {
  readonly values: Float64Array;
  readonly owners: Uint32Array;
  /** `countPerRequest` itself when nothing was thinned. */
  readonly keptPerRequest: Float64Array;
  readonly countPerRequest: Float64Array;
  readonly sumPerRequest: Float64Array;
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

/** A resample of one sample, summed once and shared by the sample's figures. */
interface Weighted {
  readonly sample: RequestValues;
  /** Times each request was drawn. */
  readonly counts: Uint32Array;
  /** How many of `values` the resample holds, with repeats. */
  readonly kept: number;
  /** How many values (before any thinning) and their sum, with repeats. */
  readonly count: number;
  readonly sum: number;
}

/**
 * numpy's linear percentile of the multiset where value i appears `counts[owners[i]]` times, found by walking the
 * sorted values from the nearer end (a p99 walks 1% of them) instead of sorting a resample.
 */
function weightedPercentile(w: Weighted, p: number): number {
  const { values, owners } = w.sample;
  const h = (w.kept - 1) * (p / 100);
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, w.kept - 1);
  let lower = Number.NaN;
  let upper = Number.NaN;
  if (p < 50) {
    let below = 0;
    for (let i = 0; i < values.length && Number.isNaN(upper); i++) {
      below += w.counts[owners[i] as number] as number;
      if (Number.isNaN(lower) && below > lo) lower = values[i] as number;
      if (below > hi) upper = values[i] as number;
    }
  } else {
    // Value i holds the ranks [start, start + its count); walking down, `hi` is met first.
    let start = w.kept;
    for (let i = values.length - 1; i >= 0 && Number.isNaN(lower); i--) {
      start -= w.counts[owners[i] as number] as number;
      if (Number.isNaN(upper) && start <= hi) upper = values[i] as number;
      if (start <= lo) lower = values[i] as number;
    }
  }
  return lower + (upper - lower) * (h - lo);
}

function statisticOf(w: Weighted, statistic: Statistic): number {
  if (statistic.kind === 'sum') return w.sum;
  if (w.kept === 0) return Number.NaN;
  return statistic.kind === 'mean' ? w.sum / w.count : weightedPercentile(w, statistic.p);
}

/** The per-request arrays every sample needs (count, sum, and kept when thinned), each summed once per resample. */
interface Columns {
  readonly arrays: readonly Float64Array[];
  /** Per sample, which arrays are its count, sum and kept (kept = count when not thinned). */
  readonly at: ReadonlyArray<{ count: number; sum: number; kept: number }>;
}

function columns(samples: readonly RequestValues[]): Columns {
  const arrays: Float64Array[] = [];
  const at = samples.map((sample) => {
    const count = arrays.push(sample.countPerRequest) - 1;
    const sum = arrays.push(sample.sumPerRequest) - 1;
    const kept =
      sample.keptPerRequest === sample.countPerRequest ? count : arrays.push(sample.keptPerRequest) - 1;
    return { count, sum, kept };
  });
  return { arrays, at };
}

/** Σ counts[r] x column[r]: a dot product, the resample's total of one per-request column. */
function weightedTotal(counts: Uint32Array, column: Float64Array): number {
  let total = 0;
  for (let r = 0; r < counts.length; r++) total += (counts[r] as number) * (column[r] as number);
  return total;
}

/**
 * RESAMPLES replicates of every figure. Each resample draws the run's `requests` once and totals every sample's
 * columns; then each figure reads its sample's totals (means, sums) or walks its values (percentiles).
 */
export function requestReplicates(
  requests: number,
  figures: readonly RequestFigure[],
  seed: number,
): Float64Array[] {
  const random = new SeededRandom(seed);
  const out = figures.map(() => new Float64Array(RESAMPLES));
  const samples = [...new Set(figures.map((figure) => figure.sample))];
  const sampleOf = figures.map((figure) => samples.indexOf(figure.sample));
  const { arrays, at: columnsOf } = columns(samples);
  const totals = new Float64Array(arrays.length);
  const counts = new Uint32Array(requests);
  for (let r = 0; r < RESAMPLES; r++) {
    counts.fill(0);
    for (let k = 0; k < requests; k++) {
      const drawn = Math.floor(random.next() * requests);
      counts[drawn] = (counts[drawn] as number) + 1;
    }
    arrays.forEach((column, j) => {
      totals[j] = weightedTotal(counts, column);
    });
    const weighed = samples.map((sample, s): Weighted => {
      const column = columnsOf[s] as Columns['at'][number];
      return {
        sample,
        counts,
        kept: totals[column.kept] as number,
        count: totals[column.count] as number,
        sum: totals[column.sum] as number,
      };
    });
    for (let f = 0; f < figures.length; f++) {
      const figure = figures[f] as RequestFigure;
      (out[f] as Float64Array)[r] = statisticOf(weighed[sampleOf[f] as number] as Weighted, figure.statistic);
    }
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
