// The breakdown in the result JSON, under `tokenmeter.breakdown` (vLLM's keys untouched): the summary always,
// and with detailed results each split's basis and one array per segment, aligned by position (null = unknown),
// from which `tokenmeter report` rebuilds the splits (breakdown-from-result.ts) for its charts and verdicts.

import type { JsonValue } from '../../src/shared/json-object.js';
import type { RunBreakdown } from './breakdown-summary.js';
import type { SplitBasis } from './request-breakdown.js';
import { SEGMENT_NAMES, type SegmentName } from './segments.js';

/** The per-request arrays of a split's basis, by their key in the file. */
export const BASIS_KEYS: Readonly<Record<string, keyof SplitBasis>> = Object.freeze({
  index: 'index',
  sent_at_ms: 'sentAtMs',
  prompt_tokens: 'promptTokens',
  ttft_ms: 'ttftMs',
  e2e_ms: 'e2eMs',
});

/** The key of a segment's per-request array: `server_queue_ms` for serverQueue. */
export function segmentKey(name: SegmentName): string {
  return `${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}_ms`;
}

function breakdownJson(breakdown: RunBreakdown, detailed: boolean): { [key: string]: JsonValue } {
  const { summary } = breakdown;
  const json: { [key: string]: JsonValue } = {
    requests: summary.requests,
    complete: summary.complete,
    segments: Object.fromEntries(
      SEGMENT_NAMES.map((name) => {
        const stats = summary.segments[name];
        return [
          name,
          stats === null ? null : { count: stats.count, p50_ms: stats.p50Ms, p99_ms: stats.p99Ms },
        ];
      }),
    ),
    residual_ms:
      summary.residual === null ? null : { min: summary.residual.minMs, max: summary.residual.maxMs },
    negative: summary.negative,
    slowest_ttft:
      summary.slowest === null
        ? null
        : {
            count: summary.slowest.count,
            from_ttft_ms: summary.slowest.fromTtftMs,
            median_ttft_ms: summary.slowest.medianTtftMs,
            dominant: summary.slowest.dominant,
            dominant_in: summary.slowest.dominantIn,
            dominant_median_ms: summary.slowest.dominantMedianMs,
            dominant_median_all_ms: summary.slowest.dominantMedianAllMs,
          },
  };
  if (detailed) {
    const { requests } = breakdown;
    for (const [key, field] of Object.entries(BASIS_KEYS)) json[key] = requests.map((r) => r[field]);
    for (const name of SEGMENT_NAMES) json[segmentKey(name)] = requests.map((r) => r.segments[name]);
  }
  return json;
}

/** The keys the breakdown adds to the result's "tokenmeter" object: none when no request completed. */
export function breakdownKeys(breakdown: RunBreakdown, detailed: boolean): { [key: string]: JsonValue } {
  return breakdown.summary.requests === 0 ? {} : { breakdown: breakdownJson(breakdown, detailed) };
}
