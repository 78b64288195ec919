// What a run's server series say, in the figures the report, the verdicts and the result JSON use: the peak of
// the gauges, the increase of the counters over the run (last sample less the baseline), the server's own TTFT
// and queue-time quantiles from its histograms' increase (PromQL's histogram_quantile, so they match a
// dashboard's), and how often running sat at its largest value while requests waited.

import { type CumulativeBucket, histogramQuantile } from '../../src/shared/prometheus-text.js';
import type { HistogramFigure } from './server-metric-names.js';
import type { HistogramEnds, SeriesFigure, ServerSeries } from './server-series.js';

export interface ServerQuantiles {
  /** Observations over the run. */
  readonly count: number;
  /** Interpolated inside their bucket, as PromQL's histogram_quantile does. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /**
   * The bucket each quantile fell in, [lower, upper] ms: all the histogram knows. The interpolated value can lie
   * anywhere inside it (vLLM's queue-time buckets start at 0.3 s, so a run where nothing queued reads p50 150 ms).
   */
  readonly p50BucketMs: readonly [number, number];
  readonly p99BucketMs: readonly [number, number];
}

export interface ServerSummary {
  readonly samples: number;
  /** 0..1, the largest sample; null when the page has no KV usage gauge. */
  readonly peakKvUsage: number | null;
  /** Increase over the run. */
  readonly preemptions: number | null;
  readonly maxRunning: number | null;
  readonly maxWaiting: number | null;
  /** Waiting at the baseline, before the first request. */
  readonly waitingAtBaseline: number | null;
  /** Samples with requests waiting, and how many of them had running at its largest value (its cap, when the
   *  server was full). */
  readonly samplesWaiting: number;
  readonly samplesWaitingAtRunningCap: number;
  /** Hits over queries over the run, else the hit-rate gauge's mean (SGLang, vLLM 0.5-0.6). */
  readonly prefixHitRate: number | null;
  /** Accepted over drafted tokens over the run. */
  readonly specAcceptance: number | null;
  readonly serverTtft: ServerQuantiles | null;
  readonly queueTime: ServerQuantiles | null;
  /** This process's CPU per sample read, in ms. */
  readonly readCpuMeanMs: number;
  readonly readCpuMaxMs: number;
}

function column(series: ServerSeries, figure: SeriesFigure): number[] {
  return (series.values[figure] ?? []).filter((v): v is number => v !== null);
}

function peak(series: ServerSeries, figure: SeriesFigure): number | null {
  const values = column(series, figure);
  return values.length === 0 ? null : Math.max(...values);
}

function increase(series: ServerSeries, figure: SeriesFigure): number | null {
  const values = column(series, figure);
  // A counter missing from the baseline had counted nothing yet (prometheus clients create a labelled series
  // on its first increment).
  const first = series.values[figure]?.[0] === null ? 0 : values[0];
  const last = values.at(-1);
  // A counter that went down was reset (the server restarted): its last value is what it counted since.
  if (first === undefined || last === undefined) return null;
  return last >= first ? last - first : last;
}

function bucketIncrease(ends: HistogramEnds): CumulativeBucket[] {
  const before = new Map(ends.first.map((b) => [b.le, b.count]));
  return ends.last.map((b) => ({ le: b.le, count: Math.max(0, b.count - (before.get(b.le) ?? 0)) }));
}

function quantiles(series: ServerSeries, figure: HistogramFigure): ServerQuantiles | null {
  const ends = series.histograms[figure];
  if (ends === undefined) return null;
  const buckets = bucketIncrease(ends);
  const count = buckets.at(-1)?.count ?? 0;
  if (count === 0) return null;
  return {
    count,
    p50Ms: histogramQuantile(0.5, buckets) * 1000,
    p99Ms: histogramQuantile(0.99, buckets) * 1000,
    p50BucketMs: bucketOf(0.5, buckets),
    p99BucketMs: bucketOf(0.99, buckets),
  };
}

/** The bounds (ms) of the bucket holding quantile `q` of cumulative `buckets` (sorted by le, +Inf last). */
function bucketOf(q: number, buckets: readonly CumulativeBucket[]): [number, number] {
  const total = buckets.at(-1)?.count ?? 0;
  let lower = 0;
  for (const bucket of buckets) {
    if (bucket.count >= q * total) return [lower * 1000, bucket.le * 1000];
    lower = bucket.le;
  }
  return [lower * 1000, Number.POSITIVE_INFINITY];
}

function ratio(top: number | null, bottom: number | null): number | null {
  return top === null || bottom === null || bottom <= 0 ? null : top / bottom;
}

export function summarizeServer(series: ServerSeries): ServerSummary {
  const running = series.values.running ?? [];
  const waiting = series.values.waiting ?? [];
  const maxRunning = peak(series, 'running');
  let samplesWaiting = 0;
  let atCap = 0;
  waiting.forEach((w, i) => {
    if (w === null || w <= 0) return;
    samplesWaiting++;
    if (maxRunning !== null && running[i] === maxRunning) atCap++;
  });
  const hitGauge = column(series, 'prefixHitRate');
  const hitRate =
    ratio(increase(series, 'prefixHits'), increase(series, 'prefixQueries')) ??
    (hitGauge.length === 0 ? null : hitGauge.reduce((a, b) => a + b, 0) / hitGauge.length);
  const cpu = series.readCpuMs;
  return {
    samples: series.tS.length,
    peakKvUsage: peak(series, 'kvUsage'),
    preemptions: increase(series, 'preemptions'),
    maxRunning,
    maxWaiting: peak(series, 'waiting'),
    waitingAtBaseline: waiting[0] ?? null,
    samplesWaiting,
    samplesWaitingAtRunningCap: atCap,
    prefixHitRate: hitRate,
    specAcceptance: ratio(increase(series, 'specAcceptedTokens'), increase(series, 'specDraftTokens')),
    serverTtft: quantiles(series, 'ttft'),
    queueTime: quantiles(series, 'queueTime'),
    readCpuMeanMs: cpu.length === 0 ? 0 : cpu.reduce((a, b) => a + b, 0) / cpu.length,
    readCpuMaxMs: cpu.length === 0 ? 0 : Math.max(...cpu),
  };
}
