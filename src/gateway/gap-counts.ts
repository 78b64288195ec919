// A request's inter-token gaps as counts in the gateway's gap histogram buckets (tokenmeter_inter_token_gap_seconds,
// PER_TOKEN_BUCKETS_S): what the metrics sink needs of the gaps, carried on the record so that sinks get the
// record and nothing else. Computed once per request, when it finishes, here only: the one place to change when
// the meter counts the buckets itself as the chunks arrive.
import { PER_TOKEN_BUCKETS_S } from '../shared/latency-buckets.js';

/** Non-zero bucket counts keyed by the bucket's `le` label (seconds; `+Inf` last), and the gaps' sum. */
export interface GapCounts {
  readonly counts: Readonly<Record<string, number>>;
  /** Sum of the gaps counted, milliseconds. */
  readonly sumMs: number;
}

/** The `le` label of each bucket, in order, then `+Inf`. */
export const GAP_BUCKET_LABELS: readonly string[] = [...PER_TOKEN_BUCKETS_S.map(String), '+Inf'];

/** The first bucket whose upper bound is at least `seconds` (Prometheus buckets are `le`: inclusive). */
function bucketOf(seconds: number): number {
  let lo = 0;
  let hi = PER_TOKEN_BUCKETS_S.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((PER_TOKEN_BUCKETS_S[mid] as number) < seconds) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The gaps (ms) as bucket counts; null when there are none to count (no meter, fewer than two chunks). */
export function gapCountsOf(gapsMs: readonly number[] | undefined): GapCounts | null {
  if (gapsMs === undefined || gapsMs.length === 0) return null;
  const counts: Record<string, number> = {};
  let sumMs = 0;
  for (const ms of gapsMs) {
    const label = GAP_BUCKET_LABELS[bucketOf(ms / 1000)] as string;
    counts[label] = (counts[label] ?? 0) + 1;
    sumMs += ms;
  }
  return { counts, sumMs };
}
