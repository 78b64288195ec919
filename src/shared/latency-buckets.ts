// Bucket boundaries of the gateway's histograms. PromQL's histogram_quantile interpolates linearly inside the
// bucket a quantile falls in, so its error is bounded by the bucket's width relative to its lower bound: a
// geometric ladder with ratio r keeps it under about r - 1 at any scale. Twenty steps per decade (r = 1.122,
// Renard's R20 ladder) keep p50 and p99 within 10% of the exact value on every spread measured in
// docs/metrics.md ("Buckets"), at the price of more series than the usual 1-2.5-5 ladder; each latency gets
// its own range, so no bucket is spent where that latency never falls.

/** Buckets per power of ten: the ladder's ratio is 10^(1/20) = 1.122. */
export const STEPS_PER_DECADE = 20;

/**
 * The geometric ladder from `fromSeconds` to `toSeconds` (both powers of ten), each bound rounded to three
 * significant digits so its `le` label reads as a short decimal (0.00112, not 0.0011220184543019633).
 */
export function geometricBuckets(fromSeconds: number, toSeconds: number): number[] {
  const first = Math.round(Math.log10(fromSeconds) * STEPS_PER_DECADE);
  const last = Math.round(Math.log10(toSeconds) * STEPS_PER_DECADE);
  const bounds: number[] = [];
  for (let step = first; step <= last; step++) {
    const decade = Math.floor(step / STEPS_PER_DECADE);
    const mantissa = (10 ** ((step - decade * STEPS_PER_DECADE) / STEPS_PER_DECADE)).toPrecision(3);
    bounds.push(Number(`${mantissa}e${decade}`));
  }
  return bounds;
}

/**
 * Inter-token gaps and TPOT: 0.1 ms (chunks of a fast model, or arriving batched) to 10 s (a stream stalled
 * behind a long prefill). 101 bounds.
 */
export const PER_TOKEN_BUCKETS_S: readonly number[] = geometricBuckets(1e-4, 10);

/** TTFT and TTFB: 1 ms (a cached prefix on a near upstream) to 1000 s (a long queue). 121 bounds. */
export const FIRST_TOKEN_BUCKETS_S: readonly number[] = geometricBuckets(1e-3, 1000);

/** The whole request: 10 ms (an error, a short answer) to 10,000 s (a long reasoning answer). 121 bounds. */
export const REQUEST_BUCKETS_S: readonly number[] = geometricBuckets(1e-2, 10_000);

/**
 * The gateway's own overhead and the upstream connection wait: 10 microseconds to 1 second. Coarser on purpose:
 * these are watched for a trend (the gateway saturating), not read to a tenth.
 */
export const OVERHEAD_BUCKETS_S = [
  0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1,
];
