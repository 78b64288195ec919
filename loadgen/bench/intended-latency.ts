// Latency measured from when the schedule wanted each request sent, beside vLLM's (from the actual send). When
// the client queued a request (--max-concurrency) or sent it late, the user still waited from the intended
// moment; this is the coordinated-omission-free figure (Gil Tene), and the gap between the two says how much
// the client side added.

import { type MetricStats, metricStats } from '../metrics/metric-stats.js';
import type { RequestRecord } from '../record.js';

export interface IntendedLatency {
  ttft: MetricStats;
  e2el: MetricStats;
}

export function intendedLatency(
  records: readonly RequestRecord[],
  percentiles: readonly number[],
): IntendedLatency {
  const ttfts: number[] = [];
  const e2els: number[] = [];
  for (const r of records) {
    if (r.outcome !== 'ok' || r.sentAtMs === null) continue;
    const delay = r.sentAtMs - r.intendedOffsetMs;
    if (r.ttftMs !== null) ttfts.push(r.ttftMs + delay);
    if (r.lastTokenMs !== null) e2els.push(r.lastTokenMs + delay);
  }
  return { ttft: metricStats(ttfts, percentiles), e2el: metricStats(e2els, percentiles) };
}
