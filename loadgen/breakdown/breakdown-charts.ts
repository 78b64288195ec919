// The run report's two breakdown figures, drawn as inline SVG in Node like loadgen/report/html/svg-chart.ts (no script): a waterfall
// of the slowest requests (one bar per request, its segments in the order they happen, a tick at the client's
// first token) and the mean split over the run (stacked bars per slice of send time). Time no measured segment
// covers is drawn grey, before the first token and after it; negative segments are not drawn and a note says
// how many. Every drawn segment carries class "mark" and data-segment.

import type { PageSection } from '../feature.js';
import { escapeHtml } from '../report/html/page.js';
import { linearScale, px, tickLabel } from '../report/html/scale.js';
import {
  type RequestBreakdown,
  SEGMENT_NAMES,
  SEGMENTS,
  type SegmentName,
  segmentLabel,
} from './request-breakdown.js';

/** What the section says instead of bars that would be all grey: where the segments come from. */
const NO_SEGMENTS =
  'No segment data: nothing split these requests into segments. Run bench with --gateway-records FILE (a ' +
  "tokenmeter gateway's records) or --span-receiver-port (the server's spans); docs/tracing.md, " +
  '"Where the time goes".';

/** Okabe-Ito's eight, one per segment; grey for the unattributed time. */
const SEGMENT_COLOURS: Readonly<Record<SegmentName, string>> = {
  clientQueue: '#000000',
  clientGateway: '#56B4E9',
  gateway: '#E69F00',
  gatewayServer: '#009E73',
  serverQueue: '#D55E00',
  prefill: '#0072B2',
  decode: '#CC79A7',
  delivery: '#F0E442',
};
const UNATTRIBUTED_COLOUR = '#bbbbbb';
const WATERFALL_ROWS = 10;
const TIME_SLICES = 20;
const WIDTH = 680;
const LEFT = 150;
const RIGHT = 20;
const ROW = 22;
const TOP = 10;
const AXIS = 40;

/** One piece of a bar: a segment, or unattributed time before or after the first token. */
interface Piece {
  readonly key: SegmentName | 'unattributed';
  readonly ms: number;
}

/** A split's pieces in the order they happen; the first token falls after the TTFT pieces. */
function piecesOf(split: RequestBreakdown): { before: Piece[]; after: Piece[] } {
  const piece = (name: SegmentName): Piece[] => {
    const ms = split.segments[name];
    return ms === null ? [] : [{ key: name, ms }];
  };
  const ttftNames = SEGMENT_NAMES.filter((name) => SEGMENTS[name].inTtft);
  const afterNames = SEGMENT_NAMES.filter((name) => !SEGMENTS[name].inTtft && name !== 'clientQueue');
  return {
    before: [
      ...piece('clientQueue'),
      ...ttftNames.flatMap(piece),
      { key: 'unattributed', ms: split.ttftUnattributedMs },
    ],
    after: [
      ...afterNames.flatMap(piece),
      { key: 'unattributed', ms: split.unattributedMs - split.ttftUnattributedMs },
    ],
  };
}

function colour(key: Piece['key']): string {
  return key === 'unattributed' ? UNATTRIBUTED_COLOUR : SEGMENT_COLOURS[key];
}

function legend(): string {
  const items = [...SEGMENT_NAMES, 'unattributed' as const].map(
    (key) =>
      `<li><span class="swatch" style="background:${colour(key)}"></span>` +
      `${escapeHtml(key === 'unattributed' ? 'unattributed' : segmentLabel(key))}</li>`,
  );
  return `<ul class="legend">${items.join('')}</ul>`;
}

function figure(id: string, title: string, svg: string, height: number, note: string): string {
  return (
    `<figure class="chart" id="chart-${id}" data-chart="${id}"><figcaption>${escapeHtml(title)}</figcaption>` +
    `<svg viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" aria-label="${escapeHtml(title)}">` +
    `<title>${escapeHtml(title)}</title>${svg}</svg>${legend()}<p class="note">${escapeHtml(note)}</p></figure>`
  );
}

function xAxis(x: ReturnType<typeof linearScale>, y: number, label: string, left: number): string {
  const ticks = x.ticks.map(
    (t) =>
      `<line class="tick" x1="${px(x(t))}" x2="${px(x(t))}" y1="${y}" y2="${y + 5}"/>` +
      `<text x="${px(x(t))}" y="${y + 17}" text-anchor="middle">${tickLabel(t)}</text>`,
  );
  return (
    `<line class="axis" x1="${left}" x2="${WIDTH - RIGHT}" y1="${y}" y2="${y}"/>${ticks.join('')}` +
    `<text class="label" x="${(left + WIDTH - RIGHT) / 2}" y="${y + 34}" text-anchor="middle">${escapeHtml(label)}</text>`
  );
}

function rect(key: Piece['key'], x: number, y: number, w: number, h: number, title: string): string {
  return (
    `<rect class="mark" data-segment="${key}" x="${px(x)}" y="${px(y)}" width="${px(w)}" height="${px(h)}" ` +
    `fill="${colour(key)}"><title>${escapeHtml(title)}</title></rect>`
  );
}

function negativeNote(splits: readonly RequestBreakdown[]): string {
  const count = splits.filter((split) => split.negative.length > 0).length;
  return count === 0
    ? ''
    : ` ${count} request${count === 1 ? ' has' : 's have'} a negative segment, not drawn (see docs/tracing.md).`;
}

/** Whether any request has a measured segment: without one, both figures would be grey bars under a legend of
 *  colours none of them uses. */
export function hasSegmentData(splits: readonly RequestBreakdown[]): boolean {
  return splits.some((split) => SEGMENT_NAMES.some((name) => (split.segments[name] ?? 0) > 0));
}

/** The slowest requests by client queue + E2E, each a bar of its segments; the tick is its first token. */
export function waterfallChart(splits: readonly RequestBreakdown[]): string {
  const slowest = [...splits].sort((a, b) => b.totalMs - a.totalMs).slice(0, WATERFALL_ROWS);
  const height = TOP + slowest.length * ROW + AXIS;
  const x = linearScale(0, Math.max(1, ...slowest.map((s) => s.totalMs)), LEFT, WIDTH - RIGHT, 6);
  const rows = slowest.map((split, row) => {
    const y = TOP + row * ROW;
    const { before, after } = piecesOf(split);
    let at = 0;
    const marks: string[] = [];
    for (const piece of [...before, ...after]) {
      if (piece.ms <= 0) continue;
      const label = piece.key === 'unattributed' ? 'unattributed' : segmentLabel(piece.key);
      marks.push(
        rect(
          piece.key,
          x(at),
          y + 3,
          x(at + piece.ms) - x(at),
          ROW - 6,
          `${label}: ${piece.ms.toFixed(2)} ms`,
        ),
      );
      at += piece.ms;
    }
    const firstToken = (split.segments.clientQueue ?? 0) + split.ttftMs;
    return (
      `<text x="${LEFT - 6}" y="${y + ROW / 2}" text-anchor="end" dominant-baseline="middle">` +
      `#${split.index} TTFT ${split.ttftMs.toFixed(0)} ms</text>${marks.join('')}` +
      `<line class="marker" x1="${px(x(firstToken))}" x2="${px(x(firstToken))}" y1="${y + 1}" y2="${y + ROW - 1}"/>`
    );
  });
  return figure(
    'breakdown-waterfall',
    `Where the time went: the ${slowest.length} slowest requests (client queue + E2E)`,
    rows.join('') + xAxis(x, TOP + slowest.length * ROW, 'time from the request being due (ms)', LEFT),
    height,
    'Segments in the order they happen; the dashed tick is the first token at the client. Grey is time no ' +
      'measured segment covers (unknown segments, or the residual).' +
      negativeNote(slowest),
  );
}

/** The mean split of the requests sent in each slice of the run, stacked. */
export function breakdownOverTimeChart(splits: readonly RequestBreakdown[]): string {
  const end = Math.max(1, ...splits.map((s) => s.sentAtMs));
  const slices = Math.max(1, Math.min(TIME_SLICES, Math.ceil(splits.length / 3)));
  const width = end / slices;
  const bins = Array.from({ length: slices }, () => [] as RequestBreakdown[]);
  for (const split of splits) bins[Math.min(slices - 1, Math.floor(split.sentAtMs / width))]?.push(split);
  const means = bins.map((bin) => {
    if (bin.length === 0) return [];
    const pieces = bin.map(piecesOf);
    const keys: Piece['key'][] = [...SEGMENT_NAMES, 'unattributed'];
    return keys.map((key) => {
      const total = pieces
        .flatMap((p) => [...p.before, ...p.after])
        .filter((piece) => piece.key === key && piece.ms > 0)
        .reduce((sum, piece) => sum + piece.ms, 0);
      return { key, ms: total / bin.length };
    });
  });
  const plotTop = TOP;
  const plotBottom = 260;
  const top = Math.max(1, ...means.map((m) => m.reduce((sum, piece) => sum + piece.ms, 0)));
  const y = linearScale(0, top, plotBottom, plotTop, 5);
  const x = linearScale(0, end / 1000, 64, WIDTH - RIGHT, 8);
  const yTicks = y.ticks
    .map(
      (t) =>
        `<line class="grid" x1="64" x2="${WIDTH - RIGHT}" y1="${px(y(t))}" y2="${px(y(t))}"/>` +
        `<text x="58" y="${px(y(t))}" text-anchor="end" dominant-baseline="middle">${tickLabel(t)}</text>`,
    )
    .join('');
  const bars = means.map((pieces, i) => {
    let at = 0;
    const left = x((i * width) / 1000);
    const barWidth = Math.max(0.5, x(((i + 1) * width) / 1000) - left - 1);
    return pieces
      .filter((piece) => piece.ms > 0)
      .map((piece) => {
        const bottom = y(at);
        at += piece.ms;
        const label = piece.key === 'unattributed' ? 'unattributed' : segmentLabel(piece.key);
        return rect(
          piece.key,
          left,
          y(at),
          barWidth,
          bottom - y(at),
          `${label}: mean ${piece.ms.toFixed(2)} ms`,
        );
      })
      .join('');
  });
  return figure(
    'breakdown-over-time',
    'Where the time went over the run (mean per request, by send time)',
    yTicks +
      `<line class="axis" x1="64" x2="64" y1="${plotTop}" y2="${plotBottom}"/>` +
      `<text class="label" transform="translate(14 ${(plotTop + plotBottom) / 2}) rotate(-90)" text-anchor="middle">mean ms per request</text>` +
      bars.join('') +
      xAxis(x, plotBottom, 'send time from run start (s)', 64),
    plotBottom + AXIS,
    `Requests sent in each of ${slices} equal slices of the run; a segment that grows over time is where load ` +
      'went (a server queue that grows is the server falling behind).' +
      negativeNote(splits),
  );
}

/** The run page's "Where the time went" section: the two figures, or where to get segments when none was measured;
 *  none when no request was split. */
export function breakdownPageSection(splits: readonly RequestBreakdown[]): PageSection | undefined {
  if (splits.length === 0) return undefined;
  return {
    heading: 'Where the time went',
    body: hasSegmentData(splits)
      ? `<div class="charts">${waterfallChart(splits)}\n${breakdownOverTimeChart(splits)}</div>`
      : `<p class="message">${escapeHtml(NO_SEGMENTS)}</p>`,
  };
}
