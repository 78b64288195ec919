// The data behind each chart of a run, derived from its per-request records: distributions as CDFs (every
// request visible, no binning choice), inter-token gaps as a histogram (pooled over requests, as vLLM's ITL),
// and time series laid from the first send.

import { percentile } from '../../metrics/numpy-stats.js';
import { chunkTimesMs } from '../../metrics/peaks.js';
import type { RequestRecord } from '../../record.js';
import type { Point } from './svg-chart.js';

/** Histogram bins; the range is cut at this percentile so one stall does not squash every other bar. */
const HISTOGRAM_BINS = 40;
const HISTOGRAM_TOP_PERCENTILE = 99.5;

export function okRecords(records: readonly RequestRecord[]): RequestRecord[] {
  return records.filter((r) => r.outcome === 'ok');
}

/** Empirical CDF in percent: (value, share of values <= it). */
export function cdfPoints(values: readonly number[]): Point[] {
  const sorted = Float64Array.from(values).sort();
  if (sorted.length === 0) return [];
  const n = sorted.length;
  const points: Point[] = [[sorted[0] as number, 0]];
  for (let i = 0; i < n; i++) points.push([sorted[i] as number, ((i + 1) / n) * 100]);
  return points;
}

export interface Histogram {
  /** (bin centre, value): count, or share of all values in percent when asked. */
  points: Point[];
  binWidth: number;
  /** Values above the last bin, left out of the bars. */
  clipped: number;
}

/** Bins from 0 to `top` (default: the 99.5th percentile of the values). */
export function histogram(values: readonly number[], asShare = false, top?: number): Histogram {
  if (values.length === 0) return { points: [], binWidth: 1, clipped: 0 };
  const upper = top ?? percentile(values, HISTOGRAM_TOP_PERCENTILE);
  const binWidth = upper > 0 ? upper / HISTOGRAM_BINS : 1;
  const counts = new Array<number>(HISTOGRAM_BINS).fill(0);
  let clipped = 0;
  for (const value of values) {
    const bin = Math.floor(value / binWidth);
    if (bin >= HISTOGRAM_BINS) {
      if (value <= upper) counts[HISTOGRAM_BINS - 1] = (counts[HISTOGRAM_BINS - 1] as number) + 1;
      else clipped++;
    } else counts[Math.max(0, bin)] = (counts[Math.max(0, bin)] as number) + 1;
  }
  const scale = asShare ? 100 / values.length : 1;
  const points = counts.map((count, i): Point => [(i + 0.5) * binWidth, count * scale]);
  return { points, binWidth, clipped };
}

/** Every gap between successive token-bearing chunks of completed requests (ms). */
export function pooledGaps(records: readonly RequestRecord[]): number[] {
  return okRecords(records).flatMap((r) => r.itlMs);
}

/** (send time in s, TTFT in ms) of each completed request. */
export function ttftOverTime(records: readonly RequestRecord[]): Point[] {
  return okRecords(records)
    .filter((r) => r.sentAtMs !== null && r.ttftMs !== null)
    .map((r) => [(r.sentAtMs as number) / 1000, r.ttftMs as number]);
}

/** Requests in flight as a step function: +1 at each send, -1 at each last token (completed requests). */
export function concurrencyOverTime(records: readonly RequestRecord[]): Point[] {
  const events: Array<[number, number]> = [];
  for (const r of okRecords(records)) {
    if (r.sentAtMs === null || r.lastTokenMs === null) continue;
    events.push([r.sentAtMs, 1], [r.sentAtMs + r.lastTokenMs, -1]);
  }
  // At equal times, ends before starts: a request finishing as another starts is not overlap.
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const points: Point[] = [[0, 0]];
  let active = 0;
  for (const [at, change] of events) {
    active += change;
    points.push([at / 1000, active]);
  }
  return points;
}

/**
 * Output tokens per 1-second bin from the first send: each chunk carries its request's tokens evenly
 * (outputTokens / chunks), so a server that batches tokens into chunks is counted in tokens, not chunks.
 */
export function tokensPerSecond(records: readonly RequestRecord[]): Point[] {
  const bins: number[] = [];
  for (const r of okRecords(records)) {
    const times = chunkTimesMs(r);
    if (times.length === 0) continue;
    const perChunk = r.outputTokens / times.length;
    for (const at of times) {
      const bin = Math.max(0, Math.floor(at / 1000));
      bins[bin] = (bins[bin] ?? 0) + perChunk;
    }
  }
  // Each bin plotted at its middle; a step line would suggest a value changing at bin edges only.
  return Array.from(bins, (tokens, i): Point => [i + 0.5, tokens ?? 0]);
}
