// Several runs on one page: who they are, the comparison table with its intervals, notes on comparability, then
// the same charts as a run report with every run overlaid in its own colour (A is always the first colour),
// drawn from each run's records (its records file when there is one, else its detailed arrays). The gap
// histogram shows shares rather than counts, over bins common to all runs, so runs of different sizes overlay.

import { compareRuns } from '../../compare/compare-runs.js';
import { methodText } from '../../compare/format-comparison.js';
import type { LoadedRun } from '../../compare/run-records.js';
import { percentile } from '../../metrics/numpy-stats.js';
import type { RequestRecord } from '../../record.js';
import { resultVerdicts } from '../result-verdicts.js';
import { comparisonTable, runLegend } from './compare-table.js';
import { escapeHtml, renderPage, section, verdictList } from './page.js';
import { cdfPoints, histogram, okRecords, pooledGaps, tokensPerSecond, ttftOverTime } from './run-series.js';
import { type ChartSpec, renderChart, type Series } from './svg-chart.js';

export interface CompareReportData {
  /** Two or more results with their records (loadRun); the first is the baseline. */
  runs: readonly LoadedRun[];
}

interface DrawnRun {
  label: string;
  colour: number;
  records: RequestRecord[];
}

function overlay(
  runs: readonly DrawnRun[],
  kind: Series['kind'],
  pick: (run: DrawnRun) => Series['points'],
): Series[] {
  return runs.map((run) => ({ name: run.label, kind, points: pick(run), colour: run.colour }));
}

function overlayCharts(runs: readonly DrawnRun[]): ChartSpec[] {
  const allGaps = runs.map((run) => pooledGaps(run.records));
  const nonEmpty = allGaps.filter((gaps) => gaps.length > 0);
  const top = Math.max(0, ...nonEmpty.map((gaps) => percentile(gaps, 99.5)));
  const cdf = (pick: (r: RequestRecord) => number | null) => (run: DrawnRun) =>
    cdfPoints(okRecords(run.records).map((r) => pick(r) ?? 0));
  return [
    {
      id: 'ttft-cdf',
      title: 'Time to first token: distributions (CDF)',
      xLabel: 'TTFT (ms)',
      yLabel: 'requests at or below (%)',
      series: overlay(
        runs,
        'step',
        cdf((r) => r.ttftMs),
      ),
      yMax: 100,
      note: 'A curve further left is faster; compare the curves at 50% (median) and 99% (p99).',
    },
    {
      id: 'e2el-cdf',
      title: 'End-to-end latency: distributions (CDF)',
      xLabel: 'E2E latency (ms)',
      yLabel: 'requests at or below (%)',
      series: overlay(
        runs,
        'step',
        cdf((r) => r.lastTokenMs),
      ),
      yMax: 100,
    },
    {
      id: 'itl-histogram',
      title: 'Inter-token gaps: histogram (share of each run’s gaps)',
      xLabel: 'gap between token-bearing chunks (ms)',
      yLabel: 'share of gaps (%)',
      series: overlay(
        runs,
        'line',
        (run) => histogram(pooledGaps(run.records), true, top || undefined).points,
      ),
      xMin: 0,
    },
    {
      id: 'ttft-over-time',
      title: 'TTFT over each run (one point per completed request)',
      xLabel: 'send time from run start (s)',
      yLabel: 'TTFT (ms)',
      series: overlay(runs, 'points', (run) => ttftOverTime(run.records)),
      xMin: 0,
    },
    {
      id: 'tokens-per-second',
      title: 'Output tokens per second over each run (1 s bins)',
      xLabel: 'time from run start (s)',
      yLabel: 'output tokens/s (tok/s)',
      series: overlay(runs, 'line', (run) => tokensPerSecond(run.records)),
      xMin: 0,
    },
  ];
}

export function renderCompareReport(data: CompareReportData): string {
  const comparison = compareRuns(data.runs);
  const drawn: DrawnRun[] = [];
  const skipped: string[] = [];
  const verdictSections: string[] = [];
  data.runs.forEach((result, i) => {
    const run = comparison.runs[i];
    const label = `${run?.letter ?? '?'}: ${run?.name ?? result.path}`;
    const records = result.records.records;
    if (records === null) skipped.push(label);
    else drawn.push({ label, colour: i, records });
    const verdicts = resultVerdicts(result.json, records);
    verdictSections.push(`<h3>${escapeHtml(label)}</h3>${verdictList(verdicts.list)}`);
  });
  const skippedNote =
    skipped.length === 0
      ? ''
      : `<p class="message">Not drawn (no records file, saved without --save-detailed): ${escapeHtml(skipped.join(', '))}.</p>`;
  const notes =
    comparison.notes.length === 0
      ? '<p class="message">The runs offered the same load.</p>'
      : `<ul>${comparison.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>`;
  const names = comparison.runs.map((run) => run.name).join(' vs ');
  return renderPage({
    title: `tokenmeter comparison: ${names}`,
    subtitle: `${comparison.runs.length} runs; A is the baseline, deltas are each run minus A`,
    sections: [
      section('Runs', runLegend(comparison)),
      section(
        'Side by side',
        `${comparisonTable(comparison)}<p class="message">${escapeHtml(methodText())}</p>${notes}`,
      ),
      section(
        'Charts',
        `${skippedNote}<div class="charts">${overlayCharts(drawn).map(renderChart).join('\n')}</div>`,
      ),
      section('Verdicts', verdictSections.join('')),
    ],
  });
}
