// The server's own metrics through the run, drawn against the client's TTFT on one time axis (seconds from the
// run's t = 0, the baseline sample before it): the client's TTFT per request, the server's running and waiting
// requests, and its KV cache usage. Read down the page: TTFT rising while waiting grows and KV usage is high is
// the server queueing for memory; with KV to spare and running flat at its cap, for seats.

import type { PageSection } from '../feature.js';
import type { RequestRecord } from '../record.js';
import { ttftOverTime } from '../report/html/run-series.js';
import { type ChartSpec, type Point, renderChart } from '../report/html/svg-chart.js';
import type { SeriesFigure, ServerSeries } from './server-series.js';
import type { ServerSummary } from './server-summary.js';

function points(series: ServerSeries, figure: SeriesFigure, scale = 1): Point[] {
  const column = series.values[figure] ?? [];
  return series.tS.flatMap((t, i) => {
    const value = column[i];
    return value === null || value === undefined ? [] : [[t, value * scale] as const];
  });
}

function serverCharts(
  series: ServerSeries,
  summary: ServerSummary,
  records: readonly RequestRecord[] | null,
): ChartSpec[] {
  const xMin = Math.min(0, series.tS[0] ?? 0);
  const xMax = Math.max(...series.tS, 0);
  const axis = { xLabel: 'time from run start (s)', xMin, xMax };
  const charts: ChartSpec[] = [];
  if (records !== null) {
    charts.push({
      id: 'server-client-ttft',
      title: "The client's TTFT over the run (one point per completed request, by send time)",
      ...axis,
      yLabel: 'TTFT (ms)',
      series: [{ name: 'client TTFT', kind: 'points', points: ttftOverTime(records) }],
      note: 'On the same time axis as the server charts below.',
    });
  }
  charts.push({
    id: 'server-queue',
    title: `The server's requests running and waiting (${series.family} /metrics, every ${series.intervalMs / 1000} s)`,
    ...axis,
    yLabel: 'requests',
    series: [
      { name: 'running', kind: 'line', points: points(series, 'running') },
      { name: 'waiting', kind: 'line', points: points(series, 'waiting') },
    ],
    note: 'Waiting growing while running stays flat: the server is at its --max-num-seqs cap or out of KV blocks.',
  });
  if (series.values.kvUsage !== undefined) {
    const preemptions = summary.preemptions;
    charts.push({
      id: 'server-kv',
      title: `The server's KV cache usage (${preemptions ?? 'no count of'} preemptions over the run)`,
      ...axis,
      yLabel: 'KV cache usage (%)',
      yMax: 100,
      series: [{ name: 'KV cache usage', kind: 'line', points: points(series, 'kvUsage', 100) }],
      note: 'At 95% and above with preemptions, the server is memory-bound (docs/loadgen.md, "Verdicts").',
    });
  }
  return charts;
}

/** The run page's server section: the charts of the series the run read, none when there are none to draw. */
export function serverPageSection(
  series: ServerSeries,
  summary: ServerSummary,
  records: readonly RequestRecord[] | null,
): PageSection | undefined {
  const charts = serverCharts(series, summary, records);
  if (charts.length === 0) return undefined;
  return {
    heading: "Server metrics against the client's TTFT",
    body: `<div class="charts">${charts.map(renderChart).join('\n')}</div>`,
  };
}
