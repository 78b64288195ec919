// A sweep on one page: per offered rate, what was achieved, how TTFT grew, output throughput and success,
// each chart with the knee the sweep's sentence states (the last level that kept up, and the first that fell
// behind), so the saturation point is seen rather than computed by the reader; no knee is drawn when the sentence
// names none. The dashed diagonal on the achieved-rate chart is "achieved = offered": where the line leaves it,
// the server stopped keeping up.

import { fixed2 } from '../python-format.js';
import type { SweepReportData, SweepReportLevel } from '../sweep-data.js';
import { escapeHtml } from './escape.js';
import { keyValueTable, renderPage, section } from './page.js';
import { type ChartSpec, type Marker, type Point, renderChart } from './svg-chart.js';

function series(
  levels: readonly SweepReportLevel[],
  pick: (level: SweepReportLevel) => number | null,
): Point[] {
  return levels
    .filter((level) => Number.isFinite(level.offeredRate) && pick(level) !== null)
    .map((level) => [level.offeredRate, pick(level) as number]);
}

function charts(data: SweepReportData, levels: readonly SweepReportLevel[]): ChartSpec[] {
  const markers: Marker[] = [];
  if (data.knee?.offeredRate != null) markers.push({ x: data.knee.offeredRate, label: 'knee' });
  if (data.knee?.firstBadRate != null) markers.push({ x: data.knee.firstBadRate, label: 'fell behind' });
  if (data.capacity?.rate != null) markers.push({ x: data.capacity.rate, label: 'SLO capacity' });
  const xLabel = 'offered request rate (req/s)';
  const top = Math.max(...levels.map((l) => l.offeredRate));
  return [
    {
      id: 'sweep-achieved',
      title: 'Achieved vs offered request rate',
      xLabel,
      yLabel: 'achieved (completed req/s)',
      series: [
        { name: 'achieved', kind: 'line', points: series(levels, (l) => l.achievedRate) },
        {
          name: 'achieved = offered',
          kind: 'line',
          points: [
            [0, 0],
            [top, top],
          ],
          colour: 6,
        },
      ],
      markers,
      xMin: 0,
    },
    {
      id: 'sweep-ttft',
      title: 'TTFT p99 and median vs offered rate',
      xLabel,
      yLabel: 'TTFT (ms)',
      series: [
        { name: 'TTFT p99', kind: 'line', points: series(levels, (l) => l.ttftP99Ms) },
        { name: 'TTFT median', kind: 'line', points: series(levels, (l) => l.ttftP50Ms) },
      ],
      markers,
      xMin: 0,
    },
    {
      id: 'sweep-throughput',
      title: 'Output token throughput vs offered rate',
      xLabel,
      yLabel: 'output tokens/s (tok/s)',
      series: [{ name: 'output tok/s', kind: 'line', points: series(levels, (l) => l.outputThroughput) }],
      markers,
      xMin: 0,
    },
    {
      id: 'sweep-success',
      title: 'Success rate vs offered rate',
      xLabel,
      yLabel: 'requests completed (%)',
      series: [
        {
          name: 'success',
          kind: 'line',
          points: series(levels, (l) => (l.successRate === null ? null : l.successRate * 100)),
        },
      ],
      markers,
      xMin: 0,
      yMax: 100,
    },
  ];
}

function cell(value: number | null, scale = 1): string {
  return `<td class="num">${value === null ? '—' : escapeHtml(fixed2(value * scale))}</td>`;
}

function levelTable(levels: readonly SweepReportLevel[]): string {
  const head = [
    'offered (req/s)',
    'achieved (req/s)',
    'success (%)',
    'TTFT median (ms)',
    'TTFT p99 (ms)',
    'ITL p99 (ms)',
    'output (tok/s)',
  ];
  const rows = levels.map(
    (l) =>
      `<tr><td class="num">${Number.isFinite(l.offeredRate) ? escapeHtml(String(l.offeredRate)) : 'inf'}</td>` +
      `${cell(l.achievedRate)}${cell(l.successRate, 100)}${cell(l.ttftP50Ms)}${cell(l.ttftP99Ms)}` +
      `${cell(l.itlP99Ms)}${cell(l.outputThroughput)}</tr>`,
  );
  return `<table><thead><tr>${head.map((h) => `<th class="num">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

export function renderSweepReport(data: SweepReportData): string {
  const levels = [...data.levels].sort((a, b) => a.offeredRate - b.offeredRate);
  const unlimited = levels.some((l) => !Number.isFinite(l.offeredRate));
  const kneeText =
    (data.knee === null
      ? '<p class="message">The summary states no knee.</p>'
      : `<p><strong>${escapeHtml(data.knee.sentence)}</strong></p>`) +
    (data.kneeCause === undefined ? '' : `<p>${escapeHtml(data.kneeCause)}</p>`) +
    (data.capacity === undefined
      ? ''
      : `<p class="capacity"><strong>SLO capacity:</strong> ${escapeHtml(data.capacity.sentence)}</p>`);
  const infNote = unlimited
    ? '<p class="message">The "inf" level (all at once) has no place on a rate axis and is only in the table.</p>'
    : '';
  const settings = Object.entries(data.settings ?? {});
  return renderPage({
    title: 'tokenmeter sweep report',
    subtitle: [`${levels.length} levels`, data.source].filter(Boolean).join(' · '),
    sections: [
      section(
        'Sweep',
        `${kneeText}<div class="panels">${settings.length > 0 ? keyValueTable('Settings', settings) : ''}${levelTable(levels)}</div>`,
      ),
      section(
        'Charts',
        `${infNote}<div class="charts">${charts(data, levels).map(renderChart).join('\n')}</div>`,
      ),
    ],
  });
}
