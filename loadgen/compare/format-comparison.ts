// The comparison as a terminal table: one column per run (A is the baseline), each later run followed by its
// change from A and the interval of that change, and a last column naming the best run per row, or "no
// significant difference". Plain ASCII, so it pastes into issues and chat unchanged.

import { CONFIDENCE, type Interval, RESAMPLES } from './bootstrap.js';
import type { Comparison, ComparisonRow, Delta } from './comparison.js';

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

/** "[-0.41, +0.38]", with the row's decimals. */
export function formatInterval(interval: Interval, integer: boolean): string {
  const end = (value: number): string => signed(formatValue(value, integer), value);
  return `[${end(interval.low)}, ${end(interval.high)}]`;
}

/** The interval of a delta, or why there is none. */
export function formatDeltaInterval(d: Delta | null, integer: boolean): string {
  if (d === null) return '-';
  if (d.interval !== null) return formatInterval(d.interval, integer);
  return d.noInterval === null ? '' : `no interval: ${d.noInterval}`;
}

/** The best column: a run's letter, "no significant difference", "A or C", or "untested" (no winner named). */
export function bestText(row: ComparisonRow, comparison: Comparison): string {
  const letters = row.leaders.map((i) => comparison.runs[i]?.letter ?? '?');
  if (row.decision === null) return '';
  if (row.decision === 'untested') return 'untested';
  const present = row.values.filter((v) => v !== null).length;
  if (letters.length === present) return 'no significant difference';
  return letters.join(' or ');
}

function rowLabel(row: ComparisonRow): string {
  return row.unit === '' ? row.label : `${row.label} (${row.unit})`;
}

function cellsOf(row: ComparisonRow, comparison: Comparison): string[] {
  const cells = [rowLabel(row)];
  row.values.forEach((value, i) => {
    cells.push(formatValue(value, row.integer));
    if (i > 0) {
      const d = row.deltas[i] ?? null;
      cells.push(formatDelta(d, row.integer), formatDeltaInterval(d, row.integer));
    }
  });
  cells.push(bestText(row, comparison));
  return cells;
}

function header(comparison: Comparison): string[] {
  const cells = ['Metric'];
  comparison.runs.forEach((run, i) => {
    cells.push(run.letter);
    if (i > 0) cells.push(`${run.letter} vs A`, intervalHeading(run.letter));
  });
  cells.push('best');
  return cells;
}

function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/** The heading of a delta's interval column: "B-A 95% CI". */
export function intervalHeading(letter: string): string {
  return `${letter}-A ${percent(CONFIDENCE)} CI`;
}

/** "http://h/v1/chat/completions, direct, tokenmeter 0.2.0 on build-1", or that the file does not say. */
export function targetText(run: Comparison['runs'][number]): string {
  const t = run.target;
  if (t === null) return 'target not saved';
  const path = t.gatewayVersion === null ? 'direct' : `through tokenmeter gateway ${t.gatewayVersion}`;
  return `${t.baseUrl ?? 'unknown URL'}, ${path}, tokenmeter ${t.tokenmeterVersion ?? '?'} on ${t.host ?? '?'}`;
}

/** "200 records (records file a.records.jsonl)", or why there are none. */
export function recordsText(run: Comparison['runs'][number]): string {
  return run.recordsSource === null
    ? `records missing: ${run.recordsMissing ?? ''}`
    : `${run.recordCount} records (${run.recordsSource})`;
}

function legend(comparison: Comparison): string[] {
  return comparison.runs.flatMap((run, i) => {
    const about = [run.model, run.backend, run.date].filter((part) => part !== null).join(', ');
    const baseline = i === 0 ? ' (baseline)' : '';
    return [
      `  ${run.letter}  ${run.name}${baseline}: ${run.path}${about === '' ? '' : ` [${about}]`}`,
      `     ${targetText(run)}; ${recordsText(run)}`,
    ];
  });
}

/** What the intervals are, under the table. */
export function methodText(): string {
  return (
    `Intervals: ${percent(CONFIDENCE)} bootstrap intervals from each run's per-request records ` +
    `(${RESAMPLES} resamples, seeded): latencies and success by resampling requests, throughputs by ` +
    'resampling time windows; the CI column is the interval of the difference. "best" names a run only when the ' +
    'interval of its difference from each other run excludes 0 (each row its own test); otherwise "no significant ' +
    'difference". "untested": a run has no interval for that row, so no run is named.'
  );
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
  out.push('', 'Lower is better for latencies; higher for throughput and success.', methodText());
  if (comparison.notes.length > 0) out.push('', 'Notes:', ...comparison.notes.map((note) => `  - ${note}`));
  return `${out.join('\n')}\n`;
}
