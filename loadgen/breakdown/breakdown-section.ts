// The "Where TTFT goes" section of bench's report: p50 and p99 of each segment, the residual of the complete
// splits, and which segment took most of the slowest 1% of TTFT. Approximate segments are marked "~".

import { centre, padRight } from '../report/python-format.js';
import type { BreakdownSummary, SegmentStats, TtftPart } from './breakdown-summary.js';
import { SEGMENT_NAMES, SEGMENTS, segmentLabel } from './segments.js';

/** Said instead of the section when the run knows no part of TTFT: its rows would all read "unknown". */
export const BREAKDOWN_UNKNOWN_LINE =
  "Where TTFT goes: not measured (needs the gateway's records, --gateway-records FILE, or the server's spans, " +
  '--span-receiver-port; docs/tracing.md)';

const ms = (value: number): string => `${value.toFixed(2)} ms`;

/** "1 request", "3 requests". */
export function requests(count: number): string {
  return `${count} request${count === 1 ? '' : 's'}`;
}

/** How a part of TTFT is named in reports and verdicts. */
export function partLabel(part: TtftPart): string {
  return part === 'unattributed' ? 'time no measured segment covers' : segmentLabel(part);
}

/**
 * The section, or one line when nothing in it is known. A plain run (no gateway records, no server spans) knows only
 * the client's own queue, which is not part of TTFT: its table would be eight rows of "unknown" and an
 * "unattributed" row that is really the whole latency, so it is left out and the line says how to get it. Once any
 * part of TTFT is known, every segment is shown, unknown ones as such, so the split is seen whole.
 */
export function formatBreakdownSection(summary: BreakdownSummary): string[] {
  if (summary.requests === 0) return [];
  const knowsTtft = SEGMENT_NAMES.some((name) => SEGMENTS[name].inTtft && summary.segments[name] !== null);
  if (!knowsTtft) return [BREAKDOWN_UNKNOWN_LINE];
  const lines = [
    centre(' Where TTFT goes ', 50, '-'),
    `${padRight('Requests split:', 40)} ${summary.requests}, ${summary.complete} with every segment known`,
    `${padRight('Segment', 30)} ${'p50 (ms)'.padStart(9)} ${'p99 (ms)'.padStart(9)}`,
  ];
  const row = (label: string, stats: SegmentStats | null): string =>
    stats === null
      ? `${padRight(label, 30)} ${'unknown'.padStart(9)}`
      : `${padRight(label, 30)} ${stats.p50Ms.toFixed(2).padStart(9)} ${stats.p99Ms.toFixed(2).padStart(9)}`;
  for (const name of SEGMENT_NAMES) lines.push(row(segmentLabel(name), summary.segments[name]));
  if (summary.complete < summary.requests)
    lines.push(row('unattributed (unknown segments)', summary.unattributed));
  if (summary.residual !== null)
    lines.push(
      `Residual (queue + E2E - segments): ${ms(summary.residual.minMs)} to ${ms(summary.residual.maxMs)}`,
    );
  if (summary.negative > 0)
    lines.push(
      `Negative segment or residual in ${requests(summary.negative)} (kept as measured; see docs/tracing.md)`,
    );
  const slow = summary.slowest;
  if (slow !== null) {
    lines.push(
      `Slowest 1% of TTFT (${requests(slow.count)}, TTFT >= ${ms(slow.fromTtftMs)}): ${partLabel(slow.dominant)} ` +
        `dominates in ${slow.dominantIn}, median ${ms(slow.dominantMedianMs)} of their median TTFT ` +
        `${ms(slow.medianTtftMs)} (all requests: ${ms(slow.dominantMedianAllMs)})`,
    );
  }
  lines.push('~ approximate: both network legs together; delivery includes the gateway relaying each chunk.');
  return lines;
}
