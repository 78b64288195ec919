// The sweep table: one line per level (a rate, or a concurrency), aligned for reading in a terminal. Rates and
// latencies are the steady window's; "achieved" shows its spread over the window's bins. A figure no request
// could give (no request in the window answered, or none completed) is "-", not 0.

import type { SweepLevel } from './sweep-level.js';

/** Requests of the steady window the server answered (those the run cut itself left out). */
const answered = (l: SweepLevel): number => l.steadyRequests - l.steadyCancelled;
/** A figure of the window's completed requests, or "-" when none completed (a level cut short early). */
const ofCompleted =
  (figure: (l: SweepLevel) => number, digits: number) =>
  (l: SweepLevel): string =>
    answered(l) * l.successRate === 0 ? '-' : figure(l).toFixed(digits);

const COLUMNS: ReadonlyArray<[string, (l: SweepLevel) => string]> = [
  ['rate (req/s)', (l) => (Number.isFinite(l.offeredRps) ? l.offeredRps.toFixed(2) : 'inf')],
  ['requests', (l) => `${l.steadyRequests}/${l.requests}`],
  ['success', (l) => (answered(l) === 0 ? '-' : `${(l.successRate * 100).toFixed(1)}%`)],
  ['achieved (req/s)', (l) => l.achievedRps.toFixed(2)],
  ['spread', (l) => `${l.achieved.minRps.toFixed(1)}-${l.achieved.maxRps.toFixed(1)}`],
  ['TTFT p50 (ms)', ofCompleted((l) => l.ttftP50Ms, 1)],
  ['TTFT p99 (ms)', ofCompleted((l) => l.ttftP99Ms, 1)],
  ['TPOT (ms)', ofCompleted((l) => l.tpotMeanMs, 2)],
  ['ITL p99 (ms)', ofCompleted((l) => l.itlP99Ms, 2)],
  ['output (tok/s)', (l) => l.outputTokPerS.toFixed(1)],
  ['drain (s)', (l) => l.drainS.toFixed(2)],
  ['status', (l) => (l.earlyStop === undefined ? l.status : `${l.status} (stopped early)`)],
];

/** A concurrency sweep's levels all run at rate inf: their first column is what they held fixed. */
const CONCURRENCY: [string, (l: SweepLevel) => string] = ['concurrency', (l) => String(l.concurrency ?? '')];

/** With GPU figures: each level's energy per output token and mean power, before its status. */
const GPU_COLUMNS: ReadonlyArray<[string, (l: SweepLevel) => string]> = [
  ['J/out tok', (l) => (l.gpu?.energyPerOutputTokenJ == null ? '-' : l.gpu.energyPerOutputTokenJ.toFixed(4))],
  ['GPU W', (l) => (l.gpu?.meanPowerW == null ? '-' : l.gpu.meanPowerW.toFixed(1))],
];

export function formatSweepTable(levels: readonly SweepLevel[]): string {
  const base = levels.some((l) => l.concurrency !== undefined) ? [CONCURRENCY, ...COLUMNS.slice(1)] : COLUMNS;
  const columns = levels.some((l) => l.gpu != null)
    ? [...base.slice(0, -1), ...GPU_COLUMNS, ...base.slice(-1)]
    : base;
  const rows = [columns.map(([title]) => title), ...levels.map((l) => columns.map(([, cell]) => cell(l)))];
  const widths = columns.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  const line = (row: string[]): string => row.map((cell, i) => cell.padStart(widths[i] ?? 0)).join('  ');
  const [header, ...body] = rows;
  return `${[line(header ?? []), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n')}\n`;
}
