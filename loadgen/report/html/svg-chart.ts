// One chart as inline SVG, drawn here in Node so the page needs no chart library and runs no script: axes
// with round ticks, grid, a title and axis labels with units, then the data as lines, steps (CDFs), points or
// bars, and optional vertical markers (the sweep's knee). Every data mark carries class "mark" so a test can
// tell a drawn chart from an empty one; a chart with no data is one line saying so, with no axes.

import { escapeHtml } from './page.js';
import { linearScale, px, tickLabel } from './scale.js';

export type SeriesKind = 'line' | 'step' | 'points' | 'bars';
export type Point = readonly [number, number];

export interface Series {
  name: string;
  kind: SeriesKind;
  points: readonly Point[];
  /** Bars only: width of one bar in x units (bars are centred on their x). */
  barWidth?: number;
  /** Palette slot; defaults to the series' position, so run N keeps its colour across charts. */
  colour?: number;
}

export interface Marker {
  x: number;
  label: string;
}

export interface ChartSpec {
  /** Unique on the page; names the figure for tests and links. */
  id: string;
  title: string;
  /** Axis labels carry their unit, e.g. "TTFT (ms)". */
  xLabel: string;
  yLabel: string;
  series: readonly Series[];
  markers?: readonly Marker[];
  /** Fixed ends of the axes; by default x spans the data and y runs from 0 to the data's maximum. */
  xMin?: number;
  xMax?: number;
  yMin?: number;
  yMax?: number;
  /** A sentence under the chart (what was left out, how to read it). */
  note?: string;
}

/** Okabe-Ito colours: told apart by colour-blind readers and in greyscale print. */
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'] as const;

const WIDTH = 680;
const HEIGHT = 300;
const LEFT = 64;
const RIGHT = 20;
const TOP = 16;
const BOTTOM = 46;
/** Points beyond this per series are thinned evenly: the eye cannot see more, and files stay small. */
const MAX_POINTS = 4000;

export function colourOf(series: Series, index: number): string {
  return PALETTE[(series.colour ?? index) % PALETTE.length] as string;
}

function thin(points: readonly Point[]): readonly Point[] {
  if (points.length <= MAX_POINTS) return points;
  const step = points.length / MAX_POINTS;
  const kept: Point[] = [];
  for (let i = 0; i < MAX_POINTS; i++) kept.push(points[Math.floor(i * step)] as Point);
  kept.push(points[points.length - 1] as Point);
  return kept;
}

function extent(values: number[], fallback: [number, number]): [number, number] {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return fallback;
  return [Math.min(...finite), Math.max(...finite)];
}

type Mapper = (value: number) => number;

function drawSeries(series: Series, colour: string, x: Mapper, y: Mapper, y0: number): string {
  const points = thin(series.points.filter(([a, b]) => Number.isFinite(a) && Number.isFinite(b)));
  if (points.length === 0) return '';
  const name = escapeHtml(series.name);
  if (series.kind === 'points') {
    const dots = points.map(([a, b]) => `<circle class="mark" cx="${px(x(a))}" cy="${px(y(b))}" r="2.2"/>`);
    return `<g fill="${colour}" fill-opacity="0.65" data-series="${name}">${dots.join('')}</g>`;
  }
  if (series.kind === 'bars') {
    const half = (series.barWidth ?? 1) / 2;
    const bars = points.map(([a, b]) => {
      const left = x(a - half);
      const top = y(b);
      const w = Math.max(0.5, x(a + half) - left - 1);
      return `<rect class="mark" x="${px(left)}" y="${px(top)}" width="${px(w)}" height="${px(Math.max(0, y0 - top))}"/>`;
    });
    return `<g fill="${colour}" data-series="${name}">${bars.join('')}</g>`;
  }
  const [first, ...rest] = points as [Point, ...Point[]];
  let d = `M${px(x(first[0]))},${px(y(first[1]))}`;
  for (const [a, b] of rest) {
    d += series.kind === 'step' ? `H${px(x(a))}V${px(y(b))}` : `L${px(x(a))},${px(y(b))}`;
  }
  const dot =
    points.length === 1
      ? `<circle class="mark" cx="${px(x(first[0]))}" cy="${px(y(first[1]))}" r="3" fill="${colour}"/>`
      : '';
  return `<path class="mark" d="${d}" fill="none" stroke="${colour}" stroke-width="2" data-series="${name}"/>${dot}`;
}

function axes(
  xScale: ReturnType<typeof linearScale>,
  yScale: ReturnType<typeof linearScale>,
  spec: ChartSpec,
): string {
  const bottom = HEIGHT - BOTTOM;
  const parts: string[] = [];
  for (const t of yScale.ticks) {
    const at = px(yScale(t));
    parts.push(`<line class="grid" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${at}" y2="${at}"/>`);
    parts.push(
      `<text x="${LEFT - 6}" y="${at}" text-anchor="end" dominant-baseline="middle">${tickLabel(t)}</text>`,
    );
  }
  for (const t of xScale.ticks) {
    const at = px(xScale(t));
    parts.push(`<line class="tick" x1="${at}" x2="${at}" y1="${bottom}" y2="${bottom + 5}"/>`);
    parts.push(`<text x="${at}" y="${bottom + 17}" text-anchor="middle">${tickLabel(t)}</text>`);
  }
  parts.push(`<line class="axis" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${bottom}" y2="${bottom}"/>`);
  parts.push(`<line class="axis" x1="${LEFT}" x2="${LEFT}" y1="${TOP}" y2="${bottom}"/>`);
  parts.push(
    `<text class="label" x="${(LEFT + WIDTH - RIGHT) / 2}" y="${HEIGHT - 6}" text-anchor="middle">${escapeHtml(spec.xLabel)}</text>`,
    `<text class="label" transform="translate(14 ${(TOP + bottom) / 2}) rotate(-90)" text-anchor="middle">${escapeHtml(spec.yLabel)}</text>`,
  );
  return parts.join('');
}

function legend(spec: ChartSpec): string {
  if (spec.series.length < 2) return '';
  const items = spec.series.map(
    (s, i) =>
      `<li><span class="swatch" style="background:${colourOf(s, i)}"></span>${escapeHtml(s.name)}</li>`,
  );
  return `<ul class="legend">${items.join('')}</ul>`;
}

/** The chart as a <figure> with its title, SVG, legend and note. */
export function renderChart(spec: ChartSpec): string {
  const all = spec.series.flatMap((s) => s.points);
  const half = Math.max(0, ...spec.series.map((s) => (s.kind === 'bars' ? (s.barWidth ?? 1) / 2 : 0)));
  const [dataXMin, dataXMax] = extent(
    [...all.map(([a]) => a), ...(spec.markers ?? []).map((m) => m.x)],
    [0, 1],
  );
  const [, dataYMax] = extent(
    all.map(([, b]) => b),
    [0, 1],
  );
  const x = linearScale(spec.xMin ?? dataXMin - half, spec.xMax ?? dataXMax + half, LEFT, WIDTH - RIGHT, 8);
  const y = linearScale(spec.yMin ?? 0, spec.yMax ?? dataYMax, HEIGHT - BOTTOM, TOP, 5);
  const id = escapeHtml(spec.id);
  const marks = spec.series.map((s, i) => drawSeries(s, colourOf(s, i), x, y, y(y.domain[0]))).join('');
  const markers = (spec.markers ?? [])
    .map((m) => {
      const at = px(x(m.x));
      // In the right half the label goes to the marker's left, or the SVG's edge would cut it ("no difference"
      // at the right end of a paired chart read "no").
      const place = x(m.x) > (LEFT + WIDTH - RIGHT) / 2 ? 'text-anchor="end" dx="-4"' : 'dx="4"';
      return (
        `<line class="marker" x1="${at}" x2="${at}" y1="${TOP}" y2="${HEIGHT - BOTTOM}"/>` +
        `<text class="marker-label" x="${at}" y="${TOP + 12}" ${place}>${escapeHtml(m.label)}</text>`
      );
    })
    .join('');
  // A chart with nothing to draw says so in one line rather than drawing empty axes.
  if (marks === '') {
    return (
      `<figure class="chart" id="chart-${id}" data-chart="${id}" data-empty="true">` +
      `<p class="message">${escapeHtml(spec.title)}: no data to draw.</p></figure>`
    );
  }
  const note = spec.note === undefined ? '' : `<p class="note">${escapeHtml(spec.note)}</p>`;
  return (
    `<figure class="chart" id="chart-${id}" data-chart="${id}">` +
    `<figcaption>${escapeHtml(spec.title)}</figcaption>` +
    `<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeHtml(spec.title)}">` +
    `<title>${escapeHtml(spec.title)}</title>${axes(x, y, spec)}` +
    `<clipPath id="clip-${id}"><rect x="${LEFT}" y="${TOP - 4}" width="${WIDTH - LEFT - RIGHT + 4}" height="${HEIGHT - TOP - BOTTOM + 8}"/></clipPath>` +
    `<g clip-path="url(#clip-${id})">${marks}</g>${markers}</svg>${legend(spec)}${note}</figure>`
  );
}
