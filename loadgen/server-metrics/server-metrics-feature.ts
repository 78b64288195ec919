// The server's own /metrics through a run (--server-metrics-url and its interval) as a run feature
// (loadgen/feature.ts): the scraper (server-scraper.ts) reads a baseline before the first request and a last sample
// after the drain, publishing each sample for the early stop; the series and its summary are saved as
// `tokenmeter.server_metrics` and read back, and shown in the report's "Server metrics" section; vLLM's
// speculative-decoding figures, when the counters show drafts, join vLLM's own block. Shards' series, read back
// from their files, are joined by time (server-series.ts, mergeSeries): every shard read the same server on a
// shared t = 0.
//
// In the result JSON: the series (raw gauge and counter values per sample, seconds from the run's t = 0), the TTFT
// and queue-time histograms at the first and last sample, the summary (peaks and increases, derived from the
// series and saved for notebooks), the scrape's cost; or, with no server metrics, the URL tried and why. Readers
// (merge, report, HTML) rebuild the series and recompute the summary.
//
// The report's section says what the server's metrics said over the run beside what the client measured (its
// TTFT against the server's), in a few rows; one line when there were none to read. A figure the server did not
// export gets no row (the result JSON keeps it as null): the section says only what it knows.

import { isJsonObject, type JsonValue, type JsonValueObject } from '../../src/shared/json-object.js';
import type { CumulativeBucket } from '../../src/shared/prometheus-text.js';
import type { RunFeature } from '../feature.js';
import { median, percentile } from '../metrics/numpy-stats.js';
import type { RequestRecord } from '../record.js';
import { centre, padRight } from '../report/python-format.js';
import { serverPageSection } from './server-charts.js';
import type { HistogramFigure, ServerFamily } from './server-metric-names.js';
import type { ServerMetricsSettings } from './server-metrics-settings.js';
import { ServerMetricsScraper, type ServerScrape } from './server-scraper.js';
import {
  mergeSeries,
  SERIES_FIGURES,
  type SeriesFigure,
  type ServerSeries,
  seriesOfScrape,
} from './server-series.js';
import { type ServerQuantiles, type ServerSummary, summarizeServer } from './server-summary.js';
import { type SpecDecodeStats, specDecodeOfScrape } from './spec-decode.js';

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

/** The client's TTFT over the same run, for the rows beside the server's. */
export interface ClientTtft {
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** The client's TTFT p50 and p99 over the run's successful requests; null with none. */
export function clientTtftOf(records: readonly RequestRecord[]): ClientTtft | null {
  const ttfts = records.filter((r) => r.outcome === 'ok' && r.ttftMs !== null).map((r) => r.ttftMs as number);
  return ttfts.length === 0 ? null : { p50Ms: median(ttfts), p99Ms: percentile(ttfts, 99) };
}

const row = (label: string, value: string): string => `${padRight(label, 40)} ${value}`;
/** The figure's row, or none when the server did not export it. */
const percentRow = (label: string, share: number | null): string[] =>
  share === null ? [] : [row(label, `${(share * 100).toFixed(1)}%`)];
const countRow = (label: string, value: number | null): string[] =>
  value === null ? [] : [row(label, String(value))];

/**
 * A histogram quantile with the bucket it lies in: the histogram knows no more than that. In the first bucket it
 * knows only an upper bound: interpolating from 0 would print half the bound as if measured (vLLM's queue-time
 * buckets start at 300 ms, so a run where nothing queued would read "150.00"), so the row says "under" instead.
 */
function quantileText(value: number, [lower, upper]: readonly [number, number]): string {
  const bound = (ms: number): string => (Number.isFinite(ms) ? ms.toFixed(0) : 'inf');
  if (lower === 0 && Number.isFinite(upper)) return `under ${bound(upper)} (first bucket)`;
  return `${value.toFixed(2)} (bucket ${bound(lower)}-${bound(upper)})`;
}

function ttftRows(server: ServerQuantiles | null, client: ClientTtft | null): string[] {
  if (server === null) return [];
  const clientText = (ms: number | undefined): string =>
    ms === undefined ? '' : `, client ${ms.toFixed(2)}`;
  return [
    row(
      'Server TTFT P50 (ms):',
      `${quantileText(server.p50Ms, server.p50BucketMs)}${clientText(client?.p50Ms)}`,
    ),
    row(
      'Server TTFT P99 (ms):',
      `${quantileText(server.p99Ms, server.p99BucketMs)}${clientText(client?.p99Ms)}`,
    ),
  ];
}

export function formatServerSection(run: ServerMetricsRun | undefined, client: ClientTtft | null): string[] {
  if (run === undefined) return [];
  if (!run.available) return [`Server metrics: none (${run.reason}).`];
  const { summary: s, series } = run;
  const lines = [
    centre(` Server metrics (${series.family} /metrics) `, 50, '-'),
    row('Samples:', `${s.samples} (every ${series.intervalMs / 1000} s, ${series.failed} failed)`),
    ...percentRow('Peak KV cache usage:', s.peakKvUsage),
    ...countRow('Preemptions:', s.preemptions),
    ...countRow('Max requests running:', s.maxRunning),
    ...countRow('Max requests waiting:', s.maxWaiting),
    ...percentRow('Prefix cache hit rate:', s.prefixHitRate),
    ...percentRow('Spec decode acceptance:', s.specAcceptance),
    ...ttftRows(s.serverTtft, client),
  ];
  if (s.queueTime !== null)
    lines.push(
      row(
        'Server queue time P50/P99 (ms):',
        `${quantileText(s.queueTime.p50Ms, s.queueTime.p50BucketMs)} / ${quantileText(s.queueTime.p99Ms, s.queueTime.p99BucketMs)}`,
      ),
    );
  lines.push(
    row(
      'Scrape cost (CPU per sample):',
      `${s.readCpuMeanMs.toFixed(3)} ms (max ${s.readCpuMaxMs.toFixed(3)}), page ${(series.pageBytes / 1024).toFixed(1)} KiB`,
    ),
  );
  return lines;
}

/** A run's server metrics: the series (or why none), and vLLM's speculative decoding when there were drafts. */
export interface ServerPart {
  readonly run: ServerMetricsRun;
  readonly specDecode?: SpecDecodeStats;
}

/** Every shard's series merged; a shard's "none" when no shard had any. */
function merge(parts: readonly ServerPart[]): ServerPart | undefined {
  const merged = mergeSeries(parts.flatMap((p) => (p.run.available ? [p.run.series] : [])));
  if (merged !== null) return { run: serverMetricsRun(merged, merged.url, '') };
  return parts[0];
}

export const serverMetricsFeature: RunFeature<
  ServerMetricsSettings,
  ServerPart,
  ServerPart,
  { readonly serverMetrics?: ServerMetricsSettings | null }
> = {
  name: 'server metrics',
  settingsOf: (run) => run.serverMetrics ?? undefined,
  async start(settings, context) {
    const scraper = await ServerMetricsScraper.start(settings, context.origin);
    scraper.onSample((sample) => context.serverSamples.publish(sample));
    let scrape: ServerScrape | undefined;
    return {
      stop: async () => {
        scrape = await scraper.finish();
      },
      seen(runStartedAtMs) {
        if (scrape === undefined) return undefined;
        const specDecode = specDecodeOfScrape(scrape);
        return {
          run: serverMetricsRun(
            seriesOfScrape(scrape, runStartedAtMs),
            scrape.url,
            scrape.unavailable ?? 'no sample could be read',
          ),
          ...(specDecode === undefined ? {} : { specDecode }),
        };
      },
    };
  },
  aggregate: (_settings, _records, seen) => seen,
  merge,
  json: {
    write: (part) => ({ [SERVER_METRICS_KEY]: serverMetricsJson(part.run) }),
    read(result) {
      const run = serverMetricsFromResult(result);
      return run === undefined ? undefined : { run };
    },
  },
  report: {
    slot: 'section',
    lines: (part, { records }) => formatServerSection(part.run, clientTtftOf(records)),
  },
  html: {
    slot: 'after-charts',
    section: (part, { records }) =>
      part.run.available ? serverPageSection(part.run.series, part.run.summary, records) : undefined,
  },
  vllm: (part) => (part.specDecode === undefined ? {} : { specDecode: part.specDecode }),
};
