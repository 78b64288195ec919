// The six charts of one run. Titles say what is shown, axis labels carry units, and notes say what was left
// out (gaps beyond the histogram's range), so a chart read alone is not misread.

import type { RequestRecord } from '../../record.js';
import {
  cdfPoints,
  concurrencyOverTime,
  histogram,
  okRecords,
  pooledGaps,
  tokensPerSecond,
  ttftOverTime,
} from './run-series.js';
import type { ChartSpec } from './svg-chart.js';

function clippedNote(clipped: number, top: number): string | undefined {
  if (clipped === 0) return undefined;
  return `${clipped} gap${clipped === 1 ? '' : 's'} above ${top.toFixed(2)} ms (beyond the 99.5th percentile) not drawn.`;
}

export function runCharts(records: readonly RequestRecord[]): ChartSpec[] {
  const ok = okRecords(records);
  const gaps = histogram(pooledGaps(records));
  const gapTop = gaps.binWidth * gaps.points.length;
  const gapNote = clippedNote(gaps.clipped, gapTop);
  return [
    {
      id: 'ttft-cdf',
      title: 'Time to first token: distribution (CDF)',
      xLabel: 'TTFT (ms)',
      yLabel: 'requests at or below (%)',
      series: [{ name: 'TTFT', kind: 'step', points: cdfPoints(ok.map((r) => r.ttftMs ?? 0)) }],
      yMax: 100,
      note: 'Read across at 50% for the median and at 99% for p99; a long flat tail is a few slow requests.',
    },
    {
      id: 'e2el-cdf',
      title: 'End-to-end latency: distribution (CDF)',
      xLabel: 'E2E latency (ms)',
      yLabel: 'requests at or below (%)',
      series: [{ name: 'E2E latency', kind: 'step', points: cdfPoints(ok.map((r) => r.lastTokenMs ?? 0)) }],
      yMax: 100,
    },
    {
      id: 'itl-histogram',
      title: 'Inter-token gaps: histogram (all gaps of all completed requests)',
      xLabel: 'gap between token-bearing chunks (ms)',
      yLabel: 'gaps (count)',
      series: [{ name: 'gaps', kind: 'bars', points: gaps.points, barWidth: gaps.binWidth }],
      xMin: 0,
      ...(gapNote === undefined ? {} : { note: gapNote }),
    },
    {
      id: 'ttft-over-time',
      title: 'TTFT over the run (one point per completed request)',
      xLabel: 'send time from run start (s)',
      yLabel: 'TTFT (ms)',
      series: [{ name: 'TTFT', kind: 'points', points: ttftOverTime(records) }],
      xMin: 0,
      note: 'Rising TTFT over time means requests queue at the server faster than it drains them.',
    },
    {
      id: 'concurrency-over-time',
      title: 'Requests in flight over the run',
      xLabel: 'time from run start (s)',
      yLabel: 'requests in flight',
      series: [{ name: 'in flight', kind: 'step', points: concurrencyOverTime(records) }],
      xMin: 0,
    },
    {
      id: 'tokens-per-second',
      title: 'Output tokens per second over the run (1 s bins)',
      xLabel: 'time from run start (s)',
      yLabel: 'output tokens/s (tok/s)',
      series: [{ name: 'output tok/s', kind: 'line', points: tokensPerSecond(records) }],
      xMin: 0,
    },
  ];
}
