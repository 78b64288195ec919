// vLLM's --plot-timeline, drawn in the run report: per request a horizontal bar from its send to its last token,
// its TTFT in one colour and each inter-token gap coloured by --timeline-itl-thresholds (vLLM's default 25 and
// 50 ms, its colours: green below the first, orange between, red at or above the second). Consecutive gaps of one
// colour are one rectangle, which looks the same and keeps a long stream's bar small; at most MAX_REQUESTS bars
// are drawn, evenly spaced in send order, and the note says how many of how many.

import { isJsonObject, type JsonValueObject } from '../../../src/shared/json-object.js';
import type { RequestRecord } from '../../record.js';
import { escapeHtml } from './page.js';
import { linearScale, px, tickLabel } from './scale.js';

/** vLLM's defaults (ms). */
export const DEFAULT_ITL_THRESHOLDS_MS: readonly [number, number] = [25, 50];
/** Bars beyond this are sampled: a row stays at least a few pixels high and the file small. */
export const MAX_TIMELINE_REQUESTS = 150;

const TTFT_COLOUR = '#636EFA';
const BAND_COLOURS = ['#109618', '#FF7F0E', '#D62728'] as const;
const WIDTH = 680;
const LEFT = 64;
const RIGHT = 20;
const TOP = 12;
const BOTTOM = 46;

interface Drawn {
  readonly record: RequestRecord;
  readonly startS: number;
}

/** Where a run saved its --timeline-itl-thresholds (ms). */
export const TIMELINE_THRESHOLDS_KEY = 'timeline_itl_thresholds_ms';

/** The thresholds the run was given (`tokenmeter.timeline_itl_thresholds_ms`), else vLLM's defaults. */
export function timelineThresholds(result: JsonValueObject): readonly [number, number] {
  const tokenmeter = result['tokenmeter'];
  const saved = isJsonObject(tokenmeter) ? tokenmeter[TIMELINE_THRESHOLDS_KEY] : undefined;
  return Array.isArray(saved) && saved.length === 2 && saved.every((v) => typeof v === 'number')
    ? [saved[0] as number, saved[1] as number]
    : DEFAULT_ITL_THRESHOLDS_MS;
}

function band(gapMs: number, [low, high]: readonly [number, number]): 0 | 1 | 2 {
  return gapMs < low ? 0 : gapMs < high ? 1 : 2;
}

/** The requests the timeline can draw (sent, with a first token), and those it draws: all, or an even sample. */
function drawable(records: readonly RequestRecord[]): { drawn: Drawn[]; total: number } {
  const all = records
    .filter((r) => r.sentAtMs !== null && r.ttftMs !== null && r.outcome === 'ok')
    .sort((a, b) => (a.sentAtMs as number) - (b.sentAtMs as number))
    .map((record) => ({ record, startS: (record.sentAtMs as number) / 1000 }));
  if (all.length <= MAX_TIMELINE_REQUESTS) return { drawn: all, total: all.length };
  const step = all.length / MAX_TIMELINE_REQUESTS;
  const drawn = Array.from({ length: MAX_TIMELINE_REQUESTS }, (_, i) => all[Math.floor(i * step)] as Drawn);
  return { drawn, total: all.length };
}

function legend(thresholds: readonly [number, number]): string {
  const [low, high] = thresholds.map((t) => tickLabel(t));
  const items: Array<[string, string]> = [
    [TTFT_COLOUR, 'TTFT'],
    [BAND_COLOURS[0], `ITL < ${low} ms`],
    [BAND_COLOURS[1], `${low} ms ≤ ITL < ${high} ms`],
    [BAND_COLOURS[2], `ITL ≥ ${high} ms`],
  ];
  return `<ul class="legend">${items
    .map(
      ([colour, label]) =>
        `<li><span class="swatch" style="background:${colour}"></span>${escapeHtml(label)}</li>`,
    )
    .join('')}</ul>`;
}

/** The timeline as a <figure>, or one line saying why there is none. */
export function timelineChart(
  records: readonly RequestRecord[],
  thresholds: readonly [number, number] = DEFAULT_ITL_THRESHOLDS_MS,
): string {
  const { drawn, total } = drawable(records);
  const title = 'Per-request timeline: TTFT and each inter-token gap (vLLM --plot-timeline)';
  if (drawn.length === 0) {
    return `<p class="message" data-chart="timeline" data-empty="true">No timeline: no completed request with a send time and a first token.</p>`;
  }
  const ends = drawn.map((d) => d.startS + (d.record.lastTokenMs ?? d.record.ttftMs ?? 0) / 1000);
  const x = linearScale(0, Math.max(...ends), LEFT, WIDTH - RIGHT, 8);
  const rowH = Math.max(3, Math.min(12, 600 / drawn.length));
  const height = TOP + rowH * drawn.length + BOTTOM;
  const bottom = height - BOTTOM;
  const rows = drawn.map(({ record, startS }, row) => {
    const y = px(TOP + row * rowH + rowH * 0.1);
    const h = px(rowH * 0.8);
    const rect = (fromS: number, toS: number, colour: string, kind: string): string =>
      `<rect class="mark ${kind}" x="${px(x(fromS))}" y="${y}" width="${px(Math.max(0.5, x(toS) - x(fromS)))}" height="${h}" fill="${colour}"/>`;
    const firstS = startS + (record.ttftMs as number) / 1000;
    const parts = [rect(startS, firstS, TTFT_COLOUR, 'ttft')];
    let runStart = firstS;
    let at = firstS;
    let runBand: number | null = null;
    for (const gap of record.itlMs) {
      const b = band(gap, thresholds);
      if (runBand !== null && b !== runBand) {
        parts.push(rect(runStart, at, BAND_COLOURS[runBand] as string, `gap band-${runBand}`));
        runStart = at;
      }
      runBand = b;
      at += gap / 1000;
    }
    if (runBand !== null)
      parts.push(rect(runStart, at, BAND_COLOURS[runBand] as string, `gap band-${runBand}`));
    return `<g class="timeline-request" data-index="${record.index}"><title>request ${record.index}: TTFT ${(record.ttftMs as number).toFixed(1)} ms, ${record.itlMs.length} gaps</title>${parts.join('')}</g>`;
  });
  const ticks = x.ticks
    .map((t) => {
      const at = px(x(t));
      return (
        `<line class="tick" x1="${at}" x2="${at}" y1="${bottom}" y2="${bottom + 5}"/>` +
        `<text x="${at}" y="${bottom + 17}" text-anchor="middle">${tickLabel(t)}</text>`
      );
    })
    .join('');
  const axes =
    `${ticks}<line class="axis" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${bottom}" y2="${bottom}"/>` +
    `<line class="axis" x1="${LEFT}" x2="${LEFT}" y1="${TOP}" y2="${bottom}"/>` +
    `<text class="label" x="${(LEFT + WIDTH - RIGHT) / 2}" y="${height - 6}" text-anchor="middle">time from run start (s)</text>` +
    `<text class="label" transform="translate(14 ${(TOP + bottom) / 2}) rotate(-90)" text-anchor="middle">requests, in send order</text>`;
  const sampled =
    drawn.length < total
      ? `${drawn.length} of ${total} completed requests drawn, evenly spaced in send order. `
      : `${total} completed request${total === 1 ? '' : 's'}. `;
  const note = `${sampled}Gaps coloured by --timeline-itl-thresholds ${thresholds.join(',')} (ms).`;
  return (
    `<figure class="chart" id="chart-timeline" data-chart="timeline">` +
    `<figcaption>${escapeHtml(title)}</figcaption>` +
    `<svg viewBox="0 0 ${WIDTH} ${px(height)}" width="${WIDTH}" height="${px(height)}" role="img" aria-label="${escapeHtml(title)}">` +
    `<title>${escapeHtml(title)}</title>${axes}${rows.join('')}</svg>${legend(thresholds)}` +
    `<p class="note">${escapeHtml(note)}</p></figure>`
  );
}
