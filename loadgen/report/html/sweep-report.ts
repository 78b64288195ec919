// A sweep on one page: per offered rate, what was achieved, how TTFT grew, output throughput and success,
// each chart with the knee the sweep's sentence states (the last level that kept up, and the first that fell
// behind), so the saturation point is seen rather than computed by the reader; no knee is drawn when the sentence
// names none. The dashed diagonal on the achieved-rate chart is "achieved = offered": where the line leaves it,
// the server stopped keeping up. A concurrency sweep (every level at rate inf, each with its own --max-concurrency)
// is drawn against its levels' concurrency instead, without the diagonal: a closed loop is offered what it completes.

import { fixed2 } from '../python-format.js';
import {
  axisValue,
  type SweepAxis,
  type SweepReportData,
  type SweepReportLevel,
  sweepAxis,
} from '../sweep-data.js';
import { escapeHtml, keyValueTable, renderPage, section } from './page.js';
import { paretoChart } from './pareto-chart.js';
import { type ChartSpec, type Marker, type Point, renderChart } from './svg-chart.js';

function series(
  axis: SweepAxis,
  levels: readonly SweepReportLevel[],
  pick: (level: SweepReportLevel) => number | null,
): Point[] {
  return levels
    .filter((level) => Number.isFinite(axisValue(axis, level)) && pick(level) !== null)
    .map((level) => [axisValue(axis, level), pick(level) as number]);
}

function charts(data: SweepReportData, levels: readonly SweepReportLevel[], axis: SweepAxis): ChartSpec[] {
  const markers: Marker[] = [];
  if (data.knee?.offeredRate != null) markers.push({ x: data.knee.offeredRate, label: 'knee' });
  if (data.knee?.firstBadRate != null) markers.push({ x: data.knee.firstBadRate, label: 'fell behind' });
  if (data.capacity?.rate != null) markers.push({ x: data.capacity.rate, label: 'SLO capacity' });
  const byConcurrency = axis === 'concurrency';
  const xLabel = byConcurrency ? 'concurrency (--max-concurrency, rate inf)' : 'offered request rate (req/s)';
  const versus = byConcurrency ? 'concurrency' : 'offered rate';
  const top = Math.max(...levels.map((l) => l.offeredRate));
  const diagonal = {
    name: 'achieved = offered',
    kind: 'line' as const,
    points: [
      [0, 0],
      [top, top],
    ] as Point[],
    colour: 6,
  };
  return [
    {
      id: 'sweep-achieved',
      title: byConcurrency ? 'Achieved request rate vs concurrency' : 'Achieved vs offered request rate',
      xLabel,
      yLabel: 'achieved (completed req/s)',
      series: [
        { name: 'achieved', kind: 'line', points: series(axis, levels, (l) => l.achievedRate) },
        ...(byConcurrency ? [] : [diagonal]),
      ],
      markers,
      xMin: 0,
    },
    {
      id: 'sweep-ttft',
      title: `TTFT p99 and median vs ${versus}`,
      xLabel,
      yLabel: 'TTFT (ms)',
      series: [
        { name: 'TTFT p99', kind: 'line', points: series(axis, levels, (l) => l.ttftP99Ms) },
        { name: 'TTFT median', kind: 'line', points: series(axis, levels, (l) => l.ttftP50Ms) },
      ],
      markers,
      xMin: 0,
    },
    {
      id: 'sweep-throughput',
      title: `Output token throughput vs ${versus}`,
      xLabel,
      yLabel: 'output tokens/s (tok/s)',
      series: [
        { name: 'output tok/s', kind: 'line', points: series(axis, levels, (l) => l.outputThroughput) },
      ],
      markers,
      xMin: 0,
    },
    {
      id: 'sweep-success',
      title: `Success rate vs ${versus}`,
      xLabel,
      yLabel: 'requests completed (%)',
      series: [
        {
          name: 'success',
          kind: 'line',
          points: series(axis, levels, (l) => (l.successRate === null ? null : l.successRate * 100)),
        },
      ],
      markers,
      xMin: 0,
      yMax: 100,
    },
    paretoChart(levels),
  ];
}

function cell(value: number | null, scale = 1): string {
  return `<td class="num">${value === null ? '—' : escapeHtml(fixed2(value * scale))}</td>`;
}

function levelTable(levels: readonly SweepReportLevel[], axis: SweepAxis): string {
  // A column only when a level was cut short: --stop-on-saturation or --max-error-rate, seconds into it.
  const stopped = levels.some((l) => l.stoppedEarlyAtS !== null);
  // A column only when a level read its GPUs (--gpu-metrics-url, nvidia-smi).
  const energy = levels.some((l) => l.energyPerOutputTokenJ !== null);
  const head = [
    ...(axis === 'concurrency' ? ['concurrency'] : []),
    'offered (req/s)',
    'achieved (req/s)',
    'success (%)',
    'TTFT median (ms)',
    'TTFT p99 (ms)',
    'ITL p99 (ms)',
    'output (tok/s)',
    ...(energy ? ['GPU J per output token'] : []),
    ...(stopped ? ['stopped early (s)'] : []),
  ];
  const rows = levels.map(
    (l) =>
      `<tr>${axis === 'concurrency' ? `<td class="num">${escapeHtml(String(l.maxConcurrency))}</td>` : ''}<td class="num">${Number.isFinite(l.offeredRate) ? escapeHtml(String(l.offeredRate)) : 'inf'}</td>` +
      `${cell(l.achievedRate)}${cell(l.successRate, 100)}${cell(l.ttftP50Ms)}${cell(l.ttftP99Ms)}` +
      `${cell(l.itlP99Ms)}${cell(l.outputThroughput)}` +
      `${energy ? `<td class="num">${l.energyPerOutputTokenJ === null ? '—' : escapeHtml(l.energyPerOutputTokenJ.toFixed(4))}</td>` : ''}` +
      `${stopped ? cell(l.stoppedEarlyAtS) : ''}</tr>`,
  );
  return `<table><thead><tr>${head.map((h) => `<th class="num">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

export function renderSweepReport(data: SweepReportData): string {
  const axis = sweepAxis(data.levels);
  const levels = [...data.levels].sort((a, b) => axisValue(axis, a) - axisValue(axis, b));
  const unlimited = axis === 'rate' && levels.some((l) => !Number.isFinite(l.offeredRate));
  const kneeText =
    (data.knee === null
      ? '<p class="message">The summary states no knee.</p>'
      : `<p><strong>${escapeHtml(data.knee.sentence)}</strong></p>`) +
    (data.kneeCause === undefined ? '' : `<p>${escapeHtml(data.kneeCause)}</p>`) +
    (data.capacity === undefined
      ? ''
      : `<p class="capacity"><strong>SLO capacity:</strong> ${escapeHtml(data.capacity.sentence)}</p>`) +
    (data.stoppedEarly === undefined
      ? ''
      : `<p class="stopped"><strong>Stopped early:</strong> ${escapeHtml(data.stoppedEarly)}</p>`);
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
        `${kneeText}<div class="panels">${settings.length > 0 ? keyValueTable('Settings', settings) : ''}${levelTable(levels, axis)}</div>`,
      ),
      section(
        'Charts',
        `${infNote}<div class="charts">${charts(data, levels, axis).map(renderChart).join('\n')}</div>`,
      ),
    ],
  });
}
