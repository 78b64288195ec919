// The gateway's inter-token gap histogram, counted inside the meter: each gap between content events goes into
// the bucket prom-client would put it in (the first bound of PER_TOKEN_BUCKETS_S it is <= to, in seconds), so a
// stream of any length costs one small array of counts instead of a list of its gaps, and the gateway adds the
// counts to its histogram once, when the request ends.

import { PER_TOKEN_BUCKETS_S } from '../shared/latency-buckets.js';

/** Upper bounds (seconds) the counts are kept against: the gateway's gap histogram's own. */
export const GAP_BUCKET_BOUNDS_S: readonly number[] = PER_TOKEN_BUCKETS_S;

/**
 * Index into counts kept per GAP_BUCKET_BOUNDS_S for a gap of `ms` milliseconds: the first bound >= the gap in
 * seconds, or GAP_BUCKET_BOUNDS_S.length for a gap past the last bound (prom-client's +Inf). The division is
 * the one prom-client's observe(ms / 1000) would see, so a gap lands in the same bucket either way.
 */
export function gapBucketIndex(ms: number): number {
  const seconds = ms / 1000;
  const bounds = GAP_BUCKET_BOUNDS_S;
  let low = 0;
  let high = bounds.length;
  // Binary search for the first bound >= seconds: 7 comparisons for the 101 bounds.
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (seconds <= (bounds[mid] as number)) high = mid;
    else low = mid + 1;
  }
  return low;
}
