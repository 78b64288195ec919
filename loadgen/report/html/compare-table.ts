// The comparison table as HTML: the same rows, values, deltas, intervals and best column as the terminal table
// (same formatting functions), with significant better deltas in green, significant worse in red, and the best
// run's value in bold. A change within the noise, or untested, is not coloured.

import type { Comparison, ComparisonRow } from '../../compare/comparison.js';
import {
  bestText,
  formatDelta,
  formatDeltaInterval,
  formatInterval,
  formatValue,
  intervalHeading,
  recordsText,
  targetText,
} from '../../compare/format-comparison.js';
import { escapeHtml } from './page.js';
import { colourOf } from './svg-chart.js';

function cells(row: ComparisonRow): string {
  return row.values
    .map((value, i) => {
      const best = row.best === i && row.decision === 'tested' ? ' best' : '';
      const own = row.intervals[i];
      const title =
        own === null || own === undefined ? '' : ` title="${escapeHtml(formatInterval(own, row.integer))}"`;
      const valueCell = `<td class="num${best}"${title}>${escapeHtml(formatValue(value, row.integer))}</td>`;
      if (i === 0) return valueCell;
      const d = row.deltas[i] ?? null;
      const tone =
        d?.significant === true && (d.verdict === 'better' || d.verdict === 'worse') ? ` ${d.verdict}` : '';
      return (
        `${valueCell}<td class="num${tone}">${escapeHtml(formatDelta(d, row.integer))}</td>` +
        `<td class="num">${escapeHtml(formatDeltaInterval(d, row.integer))}</td>`
      );
    })
    .join('');
}

export function comparisonTable(comparison: Comparison): string {
  const head = comparison.runs
    .map((run, i) => {
      const swatch = `<span class="swatch" style="background:${colourOf({ name: '', kind: 'line', points: [] }, i)}"></span>`;
      const column = `<th class="num">${swatch}${escapeHtml(run.letter)}</th>`;
      const letter = escapeHtml(run.letter);
      return i === 0
        ? column
        : `${column}<th class="num">${letter} vs A</th><th class="num">${escapeHtml(intervalHeading(run.letter))}</th>`;
    })
    .join('');
  const body = comparison.rows
    .map((row) => {
      const label = row.unit === '' ? row.label : `${row.label} (${row.unit})`;
      const direction =
        row.better === null ? '' : row.better === 'lower' ? 'lower is better' : 'higher is better';
      const best = `<td>${escapeHtml(bestText(row, comparison))}</td>`;
      return `<tr data-key="${escapeHtml(row.key)}"><th title="${direction}">${escapeHtml(label)}</th>${cells(row)}${best}</tr>`;
    })
    .join('');
  return `<table class="comparison"><thead><tr><th>Metric</th>${head}<th>best</th></tr></thead><tbody>${body}</tbody></table>`;
}

export function runLegend(comparison: Comparison): string {
  const rows = comparison.runs
    .map((run, i) => {
      const swatch = `<span class="swatch" style="background:${colourOf({ name: '', kind: 'line', points: [] }, i)}"></span>`;
      const cellsText = [
        run.name,
        run.model,
        run.backend,
        run.date,
        run.path,
        targetText(run),
        recordsText(run),
      ].map((text) => `<td>${text === null ? '—' : escapeHtml(text)}</td>`);
      const role = i === 0 ? ' (baseline)' : '';
      return `<tr><th>${swatch}${escapeHtml(run.letter)}${role}</th>${cellsText.join('')}</tr>`;
    })
    .join('');
  return (
    '<table><thead><tr><th>Run</th><th>Name</th><th>Model</th><th>Backend</th><th>Date</th><th>File</th>' +
    '<th>Target</th><th>Records</th>' +
    `</tr></thead><tbody>${rows}</tbody></table>`
  );
}
