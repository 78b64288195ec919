// A request's inter-token gaps as counts in the gateway's gap histogram buckets
// (tokenmeter_inter_token_gap_seconds): what the metrics sink needs of the gaps, carried on the record so that
// sinks get the record and nothing else. The meter counts each gap into its bucket as the chunk arrives
// (src/measure/gap-buckets.ts), so this is only a change of form, done once per request when it finishes: no list
// of gaps is kept for it.
import { GAP_BUCKET_BOUNDS_S } from '../../measure/gap-buckets.js';
import type { GapSummary } from '../../measure/stream-timing.js';

/** Non-zero bucket counts keyed by the bucket's `le` label (seconds; `+Inf` last), and the gaps' sum. */
export interface GapCounts {
  readonly counts: Readonly<Record<string, number>>;
  /** Sum of the gaps counted, milliseconds. */
  readonly sumMs: number;
}

/** The `le` label of each bucket, in order, then `+Inf`: one per entry of the meter's bucket counts. */
export const GAP_BUCKET_LABELS: readonly string[] = [...GAP_BUCKET_BOUNDS_S.map(String), '+Inf'];

/** The meter's gaps as bucket counts; null when there are none to count (no meter, fewer than two chunks). */
export function gapCountsOf(gaps: GapSummary | undefined): GapCounts | null {
  if (gaps === undefined || gaps.count === 0) return null;
  const counts: Record<string, number> = {};
  const buckets = gaps.bucketCounts;
  // An indexed loop: entries() would build a pair per bucket, for every request that finishes.
  for (let bucket = 0; bucket < buckets.length; bucket++) {
    const count = buckets[bucket] as number;
    if (count > 0) counts[GAP_BUCKET_LABELS[bucket] as string] = count;
  }
  return { counts, sumMs: gaps.sumMs };
}
