// `tokenmeter.server_metrics` in the result JSON and back: the series (raw gauge and counter values per sample,
// seconds from the run's t = 0), the TTFT and queue-time histograms at the first and last sample, the summary
// (peaks and increases, derived from the series and saved for notebooks), the scrape's cost; or, with no server
// metrics, the URL tried and why. Readers (merge, report, HTML) rebuild the series and recompute the summary.

import { isJsonObject, type JsonValue, type JsonValueObject } from '../../src/shared/json-object.js';
import type { CumulativeBucket } from '../../src/shared/promql-histogram-quantile.js';
import type { HistogramFigure, ServerFamily } from './server-metric-names.js';
import { SERIES_FIGURES, type SeriesFigure, type ServerSeries } from './server-series.js';
import { type ServerQuantiles, type ServerSummary, summarizeServer } from './server-summary.js';

export const SERVER_METRICS_KEY = 'server_metrics';

/** Each figure's key: vLLM's metric name without its prefix and `_total`. */
const SERIES_KEYS: Readonly<Record<SeriesFigure, string>> = {
  kvUsage: 'kv_cache_usage_perc',
  running: 'num_requests_running',
  waiting: 'num_requests_waiting',
  prefixHitRate: 'prefix_cache_hit_rate',
  preemptions: 'num_preemptions',
  prefixQueries: 'prefix_cache_queries',
  prefixHits: 'prefix_cache_hits',
  specDrafts: 'spec_decode_num_drafts',
  specDraftTokens: 'spec_decode_num_draft_tokens',
  specAcceptedTokens: 'spec_decode_num_accepted_tokens',
};

const HISTOGRAM_KEYS: Readonly<Record<HistogramFigure, string>> = {
  ttft: 'time_to_first_token_seconds',
  queueTime: 'request_queue_time_seconds',
};

/** A run's server metrics as the bench holds them: the series, or why there are none. */
export type ServerMetricsRun =
  | { readonly available: true; readonly series: ServerSeries; readonly summary: ServerSummary }
  | { readonly available: false; readonly url: string; readonly reason: string };

export function serverMetricsRun(series: ServerSeries | null, url: string, reason: string): ServerMetricsRun {
  return series === null
    ? { available: false, url, reason }
    : { available: true, series, summary: summarizeServer(series) };
}

const round = (value: number, places: number): number => Number(value.toFixed(places));

function quantilesJson(q: ServerQuantiles | null): JsonValue {
  return q === null ? null : { count: q.count, p50_ms: round(q.p50Ms, 3), p99_ms: round(q.p99Ms, 3) };
}

function summaryJson(s: ServerSummary): JsonValue {
  return {
    samples: s.samples,
    peak_kv_cache_usage: s.peakKvUsage,
    preemptions: s.preemptions,
    max_requests_running: s.maxRunning,
    max_requests_waiting: s.maxWaiting,
    samples_waiting: s.samplesWaiting,
    samples_waiting_at_running_cap: s.samplesWaitingAtRunningCap,
    prefix_cache_hit_rate: s.prefixHitRate,
    spec_decode_acceptance: s.specAcceptance,
    server_ttft: quantilesJson(s.serverTtft),
    queue_time: quantilesJson(s.queueTime),
    read_cpu_ms_mean: round(s.readCpuMeanMs, 4),
    read_cpu_ms_max: round(s.readCpuMaxMs, 4),
  };
}

function bucketsJson(buckets: readonly CumulativeBucket[]): JsonValue {
  return buckets.map((b) => b.count);
}

export function serverMetricsJson(run: ServerMetricsRun): JsonValue {
  if (!run.available) return { available: false, url: run.url, reason: run.reason };
  const { series } = run;
  const values: Record<string, JsonValue> = { t_s: series.tS.map((t) => round(t, 3)) };
  for (const figure of SERIES_FIGURES) {
    const column = series.values[figure];
    if (column !== undefined) values[SERIES_KEYS[figure]] = [...column];
  }
  const histograms: Record<string, JsonValue> = {};
  for (const [figure, ends] of Object.entries(series.histograms) as [
    HistogramFigure,
    ServerSeries['histograms']['ttft'],
  ][]) {
    if (ends === undefined) continue;
    histograms[HISTOGRAM_KEYS[figure]] = {
      // +Inf is last and implied: JSON has no Infinity.
      le: ends.last.filter((b) => Number.isFinite(b.le)).map((b) => b.le),
      first: bucketsJson(ends.first),
      last: bucketsJson(ends.last),
    };
  }
  return {
    available: true,
    url: series.url,
    family: series.family,
    names: { ...series.names },
    interval_s: series.intervalMs / 1000,
    summary: summaryJson(run.summary),
    scrape: {
      failed: series.failed,
      skipped: series.skipped,
      page_bytes: series.pageBytes,
      read_cpu_ms: series.readCpuMs.map((ms) => round(ms, 4)),
    },
    series: values,
    histograms,
  };
}

function numbers(value: JsonValue | undefined): number[] | null {
  return Array.isArray(value) && value.every((v) => typeof v === 'number') ? (value as number[]) : null;
}

function bucketsFrom(le: readonly number[], counts: readonly number[]): CumulativeBucket[] {
  return counts.map((count, i) => ({ le: le[i] ?? Number.POSITIVE_INFINITY, count }));
}

/** The run's server metrics from its result JSON; undefined when the file has none (an older file, or a run
 *  with --no-server-metrics). */
export function serverMetricsFromResult(json: JsonValueObject): ServerMetricsRun | undefined {
  const tokenmeter = json['tokenmeter'];
  const saved = isJsonObject(tokenmeter) ? tokenmeter[SERVER_METRICS_KEY] : undefined;
  if (!isJsonObject(saved)) return undefined;
  const url = typeof saved['url'] === 'string' ? saved['url'] : '';
  if (saved['available'] !== true) {
    return { available: false, url, reason: typeof saved['reason'] === 'string' ? saved['reason'] : '' };
  }
  const seriesJson = isJsonObject(saved['series']) ? saved['series'] : {};
  const tS = numbers(seriesJson['t_s']) ?? [];
  const values: Partial<Record<SeriesFigure, (number | null)[]>> = {};
  for (const figure of SERIES_FIGURES) {
    const column = seriesJson[SERIES_KEYS[figure]];
    if (Array.isArray(column)) values[figure] = column.map((v) => (typeof v === 'number' ? v : null));
  }
  const histograms: ServerSeries['histograms'] & Record<string, unknown> = {};
  const savedHistograms = isJsonObject(saved['histograms']) ? saved['histograms'] : {};
  for (const [figure, key] of Object.entries(HISTOGRAM_KEYS) as [HistogramFigure, string][]) {
    const h = savedHistograms[key];
    if (!isJsonObject(h)) continue;
    const le = numbers(h['le']);
    const first = numbers(h['first']);
    const last = numbers(h['last']);
    if (le === null || first === null || last === null) continue;
    (histograms as Record<string, unknown>)[figure] = {
      first: bucketsFrom(le, first),
      last: bucketsFrom(le, last),
    };
  }
  const scrape = isJsonObject(saved['scrape']) ? saved['scrape'] : {};
  const names: Record<string, string> = {};
  if (isJsonObject(saved['names'])) {
    for (const [k, v] of Object.entries(saved['names'])) if (typeof v === 'string') names[k] = v;
  }
  const series: ServerSeries = {
    url,
    family: (saved['family'] === 'sglang' ? 'sglang' : 'vllm') as ServerFamily,
    names,
    intervalMs: (typeof saved['interval_s'] === 'number' ? saved['interval_s'] : 1) * 1000,
    tS,
    values,
    histograms,
    failed: typeof scrape['failed'] === 'number' ? scrape['failed'] : 0,
    skipped: typeof scrape['skipped'] === 'number' ? scrape['skipped'] : 0,
    readCpuMs: numbers(scrape['read_cpu_ms']) ?? [],
    pageBytes: typeof scrape['page_bytes'] === 'number' ? scrape['page_bytes'] : 0,
  };
  return { available: true, series, summary: summarizeServer(series) };
}
