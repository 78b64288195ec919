// One frame of `top` as plain lines: the same text on a terminal (redrawn in place) and in a pipe (printed one
// frame after another), so what a test renders is what a user sees.

import type { Scrape } from './scrape.js';
import type { SortKey, TopRow, TopTable } from './top-rows.js';

export interface TopFrame {
  /** Wall-clock time of the frame, as shown. */
  readonly at: Date;
  readonly scrapes: readonly Scrape[];
  readonly rows: readonly TopRow[];
  /** Requests that named no model, said in one line under the table; none when absent. */
  readonly withoutModel?: TopTable['withoutModel'];
  /** Seconds the rates cover (the longest of the gateways' windows); 0 before the second reading. */
  readonly windowSeconds: number;
  readonly sortKey: SortKey;
}

const COLUMNS = [
  'UPSTREAM',
  'MODEL',
  'REQ/S',
  'SUCCESS',
  'TTFT P50',
  'TTFT P99',
  'GAP P99',
  'OUT TOK/S',
  'ERRORS',
] as const;
// Text columns are left-aligned; numbers right-aligned so their digits line up.
const LEFT_ALIGNED = new Set<string>(['UPSTREAM', 'MODEL', 'ERRORS']);

export function renderFrame(frame: TopFrame): string[] {
  const lines = [
    `tokenmeter top  ${frame.at.toISOString().slice(11, 19)} UTC  ` +
      `window ${frame.windowSeconds.toFixed(1)} s  sorted by ${frame.sortKey}`,
    ...frame.scrapes.map(gatewayLine),
    '',
  ];
  if (frame.windowSeconds === 0) {
    lines.push('waiting for a second reading: rates need two');
    return lines;
  }
  const others = withoutModelLine(frame.withoutModel);
  if (frame.rows.length === 0) {
    lines.push('no requests counted yet', ...others);
    return lines;
  }
  const cells = frame.rows.map(rowCells);
  const widths = COLUMNS.map((title, i) =>
    Math.max(title.length, ...cells.map((row) => (row[i] ?? '').length)),
  );
  const line = (values: readonly string[]) =>
    values
      .map((value, i) => {
        const width = widths[i] as number;
        return LEFT_ALIGNED.has(COLUMNS[i] as string) ? value.padEnd(width) : value.padStart(width);
      })
      .join('  ')
      .trimEnd();
  lines.push(line(COLUMNS), ...cells.map(line), ...others);
  return lines;
}

function withoutModelLine(withoutModel: TopTable['withoutModel'] | undefined): string[] {
  if (withoutModel === undefined || withoutModel.finished === 0) return [];
  return [
    `(and ${withoutModel.requestsPerSecond.toFixed(1)} req/s that named no model: model lists, probes, unrouted paths)`,
  ];
}

function gatewayLine(scrape: Scrape): string {
  if (!scrape.ok) return `gateway ${scrape.url}  ${scrape.problem}`;
  return `gateway ${scrape.reading.url}  ${scrape.reading.inFlight} in flight`;
}

function rowCells(row: TopRow): string[] {
  return [
    row.upstream,
    row.model,
    row.requestsPerSecond.toFixed(1),
    row.successRatio === null ? '-' : `${(row.successRatio * 100).toFixed(1)}%`,
    milliseconds(row.ttftP50Ms),
    milliseconds(row.ttftP99Ms),
    milliseconds(row.gapP99Ms),
    row.outputTokensPerSecond.toFixed(0),
    row.errors.map((error) => `${error.outcome} ${error.count}`).join(', ') || '-',
  ];
}

function milliseconds(ms: number | null): string {
  if (ms === null) return '-';
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(0)} ms`;
}
