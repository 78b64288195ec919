// bench's "Server metrics" section: what the server's own /metrics said over the run, beside what the client
// measured (its TTFT against the server's), in a few rows; one line when there were none to read. A figure the
// server did not export gets no row (the result JSON keeps it as null): the section says only what it knows.

import { median, percentile } from '../metrics/numpy-stats.js';
import type { RequestRecord } from '../record.js';
import { centre, padRight } from '../report/python-format.js';
import type { ServerMetricsRun } from './server-metrics-json.js';
import type { ServerQuantiles } from './server-summary.js';

/** The client's TTFT over the same run, for the rows beside the server's. */
export interface ClientTtft {
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** The client's TTFT p50 and p99 over the run's successful requests; null with none. */
export function clientTtftOf(records: readonly RequestRecord[]): ClientTtft | null {
  const ttfts = records.filter((r) => r.outcome === 'ok' && r.ttftMs !== null).map((r) => r.ttftMs as number);
  return ttfts.length === 0 ? null : { p50Ms: median(ttfts), p99Ms: percentile(ttfts, 99) };
}

const row = (label: string, value: string): string => `${padRight(label, 40)} ${value}`;
/** The figure's row, or none when the server did not export it. */
const percentRow = (label: string, share: number | null): string[] =>
  share === null ? [] : [row(label, `${(share * 100).toFixed(1)}%`)];
const countRow = (label: string, value: number | null): string[] =>
  value === null ? [] : [row(label, String(value))];

/**
 * A histogram quantile with the bucket it lies in: the histogram knows no more than that. In the first bucket it
 * knows only an upper bound: interpolating from 0 would print half the bound as if measured (vLLM's queue-time
 * buckets start at 300 ms, so a run where nothing queued would read "150.00"), so the row says "under" instead.
 */
function quantileText(value: number, [lower, upper]: readonly [number, number]): string {
  const bound = (ms: number): string => (Number.isFinite(ms) ? ms.toFixed(0) : 'inf');
  if (lower === 0 && Number.isFinite(upper)) return `under ${bound(upper)} (first bucket)`;
  return `${value.toFixed(2)} (bucket ${bound(lower)}-${bound(upper)})`;
}

function ttftRows(server: ServerQuantiles | null, client: ClientTtft | null): string[] {
  if (server === null) return [];
  const clientText = (ms: number | undefined): string =>
    ms === undefined ? '' : `, client ${ms.toFixed(2)}`;
  return [
    row(
      'Server TTFT P50 (ms):',
      `${quantileText(server.p50Ms, server.p50BucketMs)}${clientText(client?.p50Ms)}`,
    ),
    row(
      'Server TTFT P99 (ms):',
      `${quantileText(server.p99Ms, server.p99BucketMs)}${clientText(client?.p99Ms)}`,
    ),
  ];
}

export function formatServerSection(run: ServerMetricsRun | undefined, client: ClientTtft | null): string[] {
  if (run === undefined) return [];
  if (!run.available) return [`Server metrics: none (${run.reason}).`];
  const { summary: s, series } = run;
  const lines = [
    centre(` Server metrics (${series.family} /metrics) `, 50, '-'),
    row('Samples:', `${s.samples} (every ${series.intervalMs / 1000} s, ${series.failed} failed)`),
    ...percentRow('Peak KV cache usage:', s.peakKvUsage),
    ...countRow('Preemptions:', s.preemptions),
    ...countRow('Max requests running:', s.maxRunning),
    ...countRow('Max requests waiting:', s.maxWaiting),
    ...percentRow('Prefix cache hit rate:', s.prefixHitRate),
    ...percentRow('Spec decode acceptance:', s.specAcceptance),
    ...ttftRows(s.serverTtft, client),
  ];
  if (s.queueTime !== null)
    lines.push(
      row(
        'Server queue time P50/P99 (ms):',
        `${quantileText(s.queueTime.p50Ms, s.queueTime.p50BucketMs)} / ${quantileText(s.queueTime.p99Ms, s.queueTime.p99BucketMs)}`,
      ),
    );
  lines.push(
    row(
      'Scrape cost (CPU per sample):',
      `${s.readCpuMeanMs.toFixed(3)} ms (max ${s.readCpuMaxMs.toFixed(3)}), page ${(series.pageBytes / 1024).toFixed(1)} KiB`,
    ),
  );
  return lines;
}
