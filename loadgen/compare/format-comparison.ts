// The comparison as a terminal table: one column per run (A is the baseline), each later run followed by its
// change from A, and a last column naming the best run per row. Plain ASCII apart from the delta sign, so it
// pastes into issues and chat unchanged.

import type { Comparison, ComparisonRow, Delta } from './compare-runs.js';

const GAP = '  ';

/** A row's value as printed: counts whole, everything else with two decimals; '-' when missing. */
export function formatValue(value: number | null, integer: boolean): string {
  if (value === null) return '-';
  return integer ? String(Math.round(value)) : value.toFixed(2);
}

function signed(text: string, value: number): string {
  return value > 0 ? `+${text}` : text;
}

/** "+12.30 (+5.1%)"; the percent is left out when the baseline is 0. */
export function formatDelta(d: Delta | null, integer: boolean): string {
  if (d === null) return '-';
  const absolute = signed(formatValue(d.absolute, integer), d.absolute);
  return d.percent === null ? absolute : `${absolute} (${signed(d.percent.toFixed(1), d.percent)}%)`;
}

function bestText(row: ComparisonRow, comparison: Comparison): string {
  if (row.better === null) return '';
  if (row.best === null) return row.values.filter((v) => v !== null).length > 1 ? 'tie' : '';
  return comparison.runs[row.best]?.letter ?? '';
}

function rowLabel(row: ComparisonRow): string {
  return row.unit === '' ? row.label : `${row.label} (${row.unit})`;
}

function cellsOf(row: ComparisonRow, comparison: Comparison): string[] {
  const cells = [rowLabel(row)];
  row.values.forEach((value, i) => {
    cells.push(formatValue(value, row.integer));
    if (i > 0) cells.push(formatDelta(row.deltas[i] ?? null, row.integer));
  });
  cells.push(bestText(row, comparison));
  return cells;
}

function header(comparison: Comparison): string[] {
  const cells = ['Metric'];
  comparison.runs.forEach((run, i) => {
    cells.push(run.letter);
    if (i > 0) cells.push(`${run.letter} vs A`);
  });
  cells.push('best');
  return cells;
}

function legend(comparison: Comparison): string[] {
  return comparison.runs.map((run, i) => {
    const about = [run.model, run.backend, run.date].filter((part) => part !== null).join(', ');
    const baseline = i === 0 ? ' (baseline)' : '';
    return `  ${run.letter}  ${run.name}${baseline}: ${run.path}${about === '' ? '' : ` [${about}]`}`;
  });
}

export function formatComparison(comparison: Comparison): string {
  const table = [header(comparison), ...comparison.rows.map((row) => cellsOf(row, comparison))];
  const widths =
    table[0]?.map((_, col) => Math.max(...table.map((cells) => (cells[col] ?? '').length))) ?? [];
  const lines = table.map((cells) =>
    cells
      // Labels left-aligned, numbers right-aligned so digits line up.
      .map((cell, col) => (col === 0 ? cell.padEnd(widths[col] ?? 0) : cell.padStart(widths[col] ?? 0)))
      .join(GAP)
      .trimEnd(),
  );
  const out = ['Runs:', ...legend(comparison), '', ...lines];
  out.push(
    '',
    'Lower is better for latencies; higher for throughput and success. "best" names the best run.',
  );
  if (comparison.notes.length > 0) out.push('', 'Notes:', ...comparison.notes.map((note) => `  - ${note}`));
  return `${out.join('\n')}\n`;
}
