// `tokenmeter compare --pairs --html`: the paired comparison of a mirrored route on one page. The sentences and
// the table of paired differences first, then per latency a scatter of each pair (primary on x, mirror on y,
// with the diagonal where both are equal) and the distribution of the pairs' differences, then the pairs.
import { CONFIDENCE } from '../../compare/bootstrap.js';
import { pairsSummary, sideNames } from '../../compare/format-pairs.js';
import type { MirrorPair, PairedComparison, PairedFigure } from '../../compare/mirror-pairs.js';
import { escapeHtml, renderPage, section } from './page.js';
import { cdfPoints } from './run-series.js';
import { type ChartSpec, renderChart } from './svg-chart.js';

export interface PairsReportData {
  readonly comparison: PairedComparison;
}

/** More pairs than this are summarized and drawn, but not listed one per row. */
const MAX_LISTED_PAIRS = 1000;

const DRAWN: readonly { readonly figure: PairedFigure; readonly name: string }[] = [
  { figure: 'ttftMs', name: 'TTFT' },
  { figure: 'e2eMs', name: 'E2E' },
  { figure: 'tpotMs', name: 'TPOT' },
];

function okBoth(pairs: readonly MirrorPair[], figure: PairedFigure): MirrorPair[] {
  return pairs.filter(
    (p) =>
      p.primary.outcome === 'ok' &&
      p.mirror.outcome === 'ok' &&
      p.primary[figure] !== null &&
      p.mirror[figure] !== null,
  );
}

function charts(comparison: PairedComparison): ChartSpec[] {
  return DRAWN.flatMap(({ figure, name }): ChartSpec[] => {
    const pairs = okBoth(comparison.pairs, figure);
    if (pairs.length === 0) return [];
    const points = pairs.map((p) => [p.primary[figure] as number, p.mirror[figure] as number] as const);
    const top = Math.max(...points.flat());
    return [
      {
        id: `${figure}-pairs`,
        title: `${name}: mirror against primary, one point per pair`,
        xLabel: `primary ${name} (ms)`,
        yLabel: `mirror ${name} (ms)`,
        series: [
          { name: 'pairs', kind: 'points', points, colour: 0 },
          {
            name: 'equal',
            kind: 'line',
            points: [
              [0, 0],
              [top, top],
            ],
            colour: 6,
          },
        ],
        xMin: 0,
        yMin: 0,
        xMax: top,
        yMax: top,
        note: 'Points above the diagonal: the mirror was slower on that request.',
      },
      {
        id: `${figure}-differences`,
        title: `${name}: paired differences, mirror minus primary (CDF)`,
        xLabel: `${name} difference (ms)`,
        yLabel: 'pairs at or below (%)',
        series: [
          {
            name: 'mirror - primary',
            kind: 'step',
            points: cdfPoints(pairs.map((p) => (p.mirror[figure] as number) - (p.primary[figure] as number))),
            colour: 1,
          },
        ],
        yMax: 100,
        markers: [{ x: 0, label: 'no difference' }],
        note: 'Where the curve crosses 50% is the median difference; right of 0, the mirror is slower.',
      },
    ];
  });
}

function cell(value: string | number | null): string {
  return `<td class="num">${escapeHtml(value === null ? '-' : typeof value === 'number' ? value.toFixed(1) : value)}</td>`;
}

function pairRows(pairs: readonly MirrorPair[]): string {
  const figures: PairedFigure[] = ['ttftMs', 'tpotMs', 'e2eMs', 'outputTokens'];
  const rows = pairs.slice(0, MAX_LISTED_PAIRS).map((p) => {
    const cells = figures.map((f) => `${cell(p.primary[f])}${cell(p.mirror[f])}`).join('');
    return `<tr><td>${escapeHtml(p.pairId)}</td>${cells}${cell(`${p.primary.finishReason ?? '-'} / ${p.mirror.finishReason ?? '-'}`)}${cell(`${p.primary.outcome} / ${p.mirror.outcome}`)}</tr>`;
  });
  const head =
    '<tr><th rowspan="2">pair id</th><th colspan="2">TTFT (ms)</th><th colspan="2">TPOT (ms)</th><th colspan="2">E2E (ms)</th><th colspan="2">output tokens</th><th rowspan="2">finish reasons</th><th rowspan="2">outcomes</th></tr>' +
    `<tr>${'<th class="num">primary</th><th class="num">mirror</th>'.repeat(4)}</tr>`;
  const cut =
    pairs.length > MAX_LISTED_PAIRS
      ? `<p class="message">The first ${MAX_LISTED_PAIRS} of ${pairs.length} pairs; all are in the summary and the charts.</p>`
      : '';
  return `<table><thead>${head}</thead><tbody>${rows.join('')}</tbody></table>${cut}`;
}

export function renderPairsReport(data: PairsReportData): string {
  const { comparison } = data;
  const names = sideNames(comparison);
  const summary = pairsSummary(comparison);
  const table = `<table><thead><tr>${summary.header.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${summary.rows
    .map((row) => `<tr>${row.map((v, i) => (i === 0 ? `<th>${escapeHtml(v)}</th>` : cell(v))).join('')}</tr>`)
    .join('')}</tbody></table>`;
  const sentences = summary.sentences.map((s) => `<li>${escapeHtml(s)}</li>`).join('');
  return renderPage({
    title: `tokenmeter paired comparison: ${names.mirror} against ${names.primary}`,
    subtitle: `${comparison.pairs.length} pairs from a mirrored route: the same requests at the same moment; differences are mirror minus primary, with ${Math.round(CONFIDENCE * 100)}% bootstrap intervals over pairs`,
    sections: [
      section(
        'Summary',
        `<ul>${sentences}</ul>${table}<p class="message">${escapeHtml(summary.notes.join(' '))}</p>`,
      ),
      section('Charts', `<div class="charts">${charts(comparison).map(renderChart).join('\n')}</div>`),
      section('Pairs', pairRows(comparison.pairs)),
    ],
  });
}
