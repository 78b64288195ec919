// The breakdown in the result JSON, under `tokenmeter.breakdown` (vLLM's keys untouched): the summary always,
// and with detailed results one array per segment, index-aligned with `tokenmeter.breakdown.index` (null =
// unknown), for the HTML report's waterfall and stacked chart.

import type { JsonValue } from '../report/result-json.js';
import type { RunBreakdown } from './run-breakdown.js';
import { SEGMENT_NAMES } from './segments.js';

export function breakdownJson(breakdown: RunBreakdown, detailed: boolean): { [key: string]: JsonValue } {
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
    json['index'] = requests.map((r) => r.index);
    json['sent_at_ms'] = requests.map((r) => r.sentAtMs);
    json['ttft_ms'] = requests.map((r) => r.ttftMs);
    json['total_ms'] = requests.map((r) => r.totalMs);
    json['unattributed_ms'] = requests.map((r) => r.unattributedMs);
    for (const name of SEGMENT_NAMES) json[`${name}_ms`] = requests.map((r) => r.segments[name]);
  }
  return json;
}
