// The sweep table: one line per level (a rate, or a concurrency), aligned for reading in a terminal. Rates and
// latencies are the steady window's; "achieved" shows its spread over the window's bins.

import type { SweepLevel } from './sweep-level.js';

const COLUMNS: ReadonlyArray<[string, (l: SweepLevel) => string]> = [
  ['rate (req/s)', (l) => (Number.isFinite(l.offeredRps) ? l.offeredRps.toFixed(2) : 'inf')],
  ['requests', (l) => `${l.steadyRequests}/${l.requests}`],
  ['success', (l) => `${(l.successRate * 100).toFixed(1)}%`],
  ['achieved (req/s)', (l) => l.achievedRps.toFixed(2)],
  ['spread', (l) => `${l.achieved.minRps.toFixed(1)}-${l.achieved.maxRps.toFixed(1)}`],
  ['TTFT p50 (ms)', (l) => l.ttftP50Ms.toFixed(1)],
  ['TTFT p99 (ms)', (l) => l.ttftP99Ms.toFixed(1)],
  ['TPOT (ms)', (l) => l.tpotMeanMs.toFixed(2)],
  ['ITL p99 (ms)', (l) => l.itlP99Ms.toFixed(2)],
  ['output (tok/s)', (l) => l.outputTokPerS.toFixed(1)],
  ['drain (s)', (l) => l.drainS.toFixed(2)],
  ['status', (l) => l.status],
];

/** A concurrency sweep's levels all run at rate inf: their first column is what they held fixed. */
const CONCURRENCY: [string, (l: SweepLevel) => string] = ['concurrency', (l) => String(l.concurrency ?? '')];

export function formatSweepTable(levels: readonly SweepLevel[]): string {
  const columns = levels.some((l) => l.concurrency !== undefined)
    ? [CONCURRENCY, ...COLUMNS.slice(1)]
    : COLUMNS;
  const rows = [columns.map(([title]) => title), ...levels.map((l) => columns.map(([, cell]) => cell(l)))];
  const widths = columns.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  const line = (row: string[]): string => row.map((cell, i) => cell.padStart(widths[i] ?? 0)).join('  ');
  const [header, ...body] = rows;
  return `${[line(header ?? []), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n')}\n`;
}
