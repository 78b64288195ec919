// Statistics computed the way numpy computes them, so our numbers match vLLM's (which calls np.mean, np.std,
// np.median and np.percentile) to the last printed digit:
// - sums use numpy's pairwise summation (blocks of up to 128 summed with 8 accumulators, halves beyond), which
//   also keeps rounding error low on long series;
// - std is the population std (ddof = 0): sqrt(mean((x - mean)^2));
// - percentiles use numpy's default 'linear' method: index (n - 1) x p/100 between the sorted neighbours,
//   interpolated with numpy's two-sided lerp (from the nearer end when the fraction is >= 0.5);
// - the median of an even count is the mean of the two middle values.

const BLOCK = 128;

function pairwiseSum(values: ArrayLike<number>, start: number, n: number): number {
  if (n < 8) {
    let sum = 0;
    for (let i = start; i < start + n; i++) sum += values[i] as number;
    return sum;
  }
  if (n <= BLOCK) {
    const r = [0, 0, 0, 0, 0, 0, 0, 0];
    for (let j = 0; j < 8; j++) r[j] = values[start + j] as number;
    let i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (let j = 0; j < 8; j++) r[j] = (r[j] as number) + (values[start + i + j] as number);
    }
    const [r0, r1, r2, r3, r4, r5, r6, r7] = r as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    let sum = r0 + r1 + (r2 + r3) + (r4 + r5 + (r6 + r7));
    for (; i < n; i++) sum += values[start + i] as number;
    return sum;
  }
  let half = Math.floor(n / 2);
  half -= half % 8;
  return pairwiseSum(values, start, half) + pairwiseSum(values, start + half, n - half);
}

/** numpy's `np.sum` of a float64 array. */
export function sum(values: ArrayLike<number>): number {
  return pairwiseSum(values, 0, values.length);
}

/** `np.mean`; NaN for no values (numpy warns and returns nan). */
export function mean(values: ArrayLike<number>): number {
  return values.length === 0 ? Number.NaN : sum(values) / values.length;
}

/** `np.std` (population, ddof = 0). */
export function std(values: ArrayLike<number>): number {
  if (values.length === 0) return Number.NaN;
  const m = mean(values);
  const squares = Array.from(values, (v) => (v - m) * (v - m));
  return Math.sqrt(sum(squares) / values.length);
}

/** The values as a sorted Float64Array: what the *OfSorted functions take. */
export function sortedCopy(values: ArrayLike<number>): Float64Array {
  return Float64Array.from(values).sort();
}

/** numpy's `_lerp`: exact at both ends, monotonic in t. */
function lerp(a: number, b: number, t: number): number {
  const diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

/** `np.percentile(values, p)` with the default linear method; p in [0, 100]. */
export function percentile(values: ArrayLike<number>, p: number): number {
  return percentiles(values, [p])[0] as number;
}

/** Several percentiles of the same values, sorting once. */
export function percentiles(values: ArrayLike<number>, ps: readonly number[]): number[] {
  return percentilesOfSorted(sortedCopy(values), ps);
}

/** `percentiles` of values already sorted ascending (sortedCopy), for a caller that needs them sorted again. */
export function percentilesOfSorted(sorted: Float64Array, ps: readonly number[]): number[] {
  if (sorted.length === 0) return ps.map(() => Number.NaN);
  const last = sorted.length - 1;
  return ps.map((p) => {
    if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within [0, 100], got ${p}`);
    const virtual = (p / 100) * last;
    const below = Math.floor(virtual);
    if (below >= last) return sorted[last] as number;
    return lerp(sorted[below] as number, sorted[below + 1] as number, virtual - below);
  });
}

/** `np.median`. */
export function median(values: ArrayLike<number>): number {
  return medianOfSorted(sortedCopy(values));
}

/** `median` of values already sorted ascending (sortedCopy). */
export function medianOfSorted(sorted: Float64Array): number {
  if (sorted.length === 0) return Number.NaN;
  const middle = sorted.length >> 1;
  if (sorted.length % 2 === 1) return sorted[middle] as number;
  return ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

// ---- One series' stats as vLLM reports them ----
// Mean / median / std / chosen percentiles of one latency series, as vLLM reports them. vLLM computes these
// over `values or 0`: a series with no values (every request failed, or no request had 2+ tokens for TPOT)
// reports zeros rather than nan. We keep that for the vLLM-compatible output and keep `count` so our own
// reports can say "no data" instead.

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
