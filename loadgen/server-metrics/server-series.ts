// A run's server samples as series on the run's clock (seconds from its t = 0; the baseline is before 0), the
// form every reader works from: the summary, the result JSON, the HTML chart and `merge`, which joins shards'
// series by time (each shard scraped the same server, on a shared t = 0).

import type { CumulativeBucket } from '../../src/shared/prometheus-text.js';
import type { CounterFigure, GaugeFigure, HistogramFigure, ServerFamily } from './server-metric-names.js';
import type { ServerScrape } from './server-scraper.js';

export const SERIES_FIGURES = [
  'kvUsage',
  'running',
  'waiting',
  'prefixHitRate',
  'preemptions',
  'prefixQueries',
  'prefixHits',
  'specDrafts',
  'specDraftTokens',
  'specAcceptedTokens',
] as const satisfies readonly (GaugeFigure | CounterFigure)[];
export type SeriesFigure = (typeof SERIES_FIGURES)[number];

/** A histogram at the first sample and at the last: its increase is the run's. */
export interface HistogramEnds {
  readonly first: readonly CumulativeBucket[];
  readonly last: readonly CumulativeBucket[];
}

export interface ServerSeries {
  readonly url: string;
  readonly family: ServerFamily;
  readonly names: Readonly<Record<string, string>>;
  readonly intervalMs: number;
  /** Seconds from the run's t = 0, ascending. */
  readonly tS: readonly number[];
  /** Per figure the page had, one value per sample (null where that sample lacked it). */
  readonly values: Partial<Readonly<Record<SeriesFigure, readonly (number | null)[]>>>;
  readonly histograms: Partial<Readonly<Record<HistogramFigure, HistogramEnds>>>;
  /** The scrape's own cost and health. */
  readonly failed: number;
  readonly skipped: number;
  readonly readCpuMs: readonly number[];
  readonly pageBytes: number;
}

function figureOf(sample: ServerScrape['samples'][number], figure: SeriesFigure): number | null {
  const { gauges, counters } = sample.reading;
  return figure in gauges ? gauges[figure as GaugeFigure] : counters[figure as CounterFigure];
}

/** The scrape on the run's clock; null when there are no samples. */
export function seriesOfScrape(scrape: ServerScrape, runStartedAtMs: number): ServerSeries | null {
  const first = scrape.samples[0];
  const last = scrape.samples.at(-1);
  if (first === undefined || last === undefined) return null;
  const values: Partial<Record<SeriesFigure, (number | null)[]>> = {};
  for (const figure of SERIES_FIGURES) {
    const column = scrape.samples.map((s) => figureOf(s, figure));
    if (column.some((v) => v !== null)) values[figure] = column;
  }
  const histograms: Partial<Record<HistogramFigure, HistogramEnds>> = {};
  for (const figure of ['ttft', 'queueTime'] as const) {
    const b = last.reading.histograms[figure];
    // Missing from the baseline: it had observed nothing yet (see server-summary.ts's counters).
    const a = first.reading.histograms[figure] ?? b?.map((bucket) => ({ le: bucket.le, count: 0 })) ?? null;
    if (a !== null && b !== null) histograms[figure] = { first: a, last: b };
  }
  return {
    url: scrape.url,
    family: first.reading.family,
    names: last.reading.names,
    intervalMs: scrape.intervalMs,
    tS: scrape.samples.map((s) => (s.atMs - runStartedAtMs) / 1000),
    values,
    histograms,
    failed: scrape.failed,
    skipped: scrape.skipped,
    readCpuMs: scrape.readCpuMs,
    pageBytes: scrape.pageBytes,
  };
}

/** A cumulative histogram's count of observations: its last bucket, +Inf's. */
const observations = (buckets: readonly CumulativeBucket[]): number => buckets.at(-1)?.count ?? 0;

/** Shards' series joined by time: every sample in time order, the histograms from the earliest first sample to
 *  the latest last one (the same server's counters, so the increase spans the whole run). The earliest and latest
 *  are picked by their counts, which only grow, not by the shards' clocks: shards not started at one instant
 *  (no --start-at) each have a t = 0 of their own, and the clock would pick a baseline taken after another
 *  shard's first requests (measured: 23 of 30 requests counted, against 30 by the counts). */
export function mergeSeries(parts: readonly ServerSeries[]): ServerSeries | null {
  const [head] = parts;
  if (head === undefined) return null;
  const rows = parts.flatMap((part) => part.tS.map((t, i) => ({ t, part, i })));
  rows.sort((a, b) => a.t - b.t);
  const values: Partial<Record<SeriesFigure, (number | null)[]>> = {};
  for (const figure of SERIES_FIGURES) {
    if (!parts.some((p) => p.values[figure] !== undefined)) continue;
    values[figure] = rows.map((r) => r.part.values[figure]?.[r.i] ?? null);
  }
  const histograms: Partial<Record<HistogramFigure, HistogramEnds>> = {};
  for (const figure of ['ttft', 'queueTime'] as const) {
    const ends = parts.flatMap((part) => part.histograms[figure] ?? []);
    const [one, ...others] = ends;
    if (one === undefined) continue;
    histograms[figure] = {
      first: others.reduce((a, b) => (observations(b.first) < observations(a.first) ? b : a), one).first,
      last: others.reduce((a, b) => (observations(b.last) > observations(a.last) ? b : a), one).last,
    };
  }
  return {
    ...head,
    tS: rows.map((r) => r.t),
    values,
    histograms,
    failed: parts.reduce((n, p) => n + p.failed, 0),
    skipped: parts.reduce((n, p) => n + p.skipped, 0),
    readCpuMs: parts.flatMap((p) => p.readCpuMs),
    pageBytes: Math.max(...parts.map((p) => p.pageBytes)),
  };
}
