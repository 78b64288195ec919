// Aggregates per-request records into exactly the metrics vLLM's serving benchmark reports:
// - completed = requests with outcome ok; failed = all others;
// - total input = prompt tokens of completed requests; total output = their output tokens;
// - throughputs = completed / duration, output / duration, (input + output) / duration;
// - TPOT per request = (E2EL - TTFT) / (output tokens - 1), only for requests with more than one output token;
//   stats average per request; ITL stats pool every gap of every completed request;
// - goodput = completed requests meeting every given SLO (<=) / duration; for the TPOT SLO a request with one
//   output token counts as TPOT 0, as in vLLM;
// - peaks from 1-second bins (see peaks.ts).
// Durations are in ms here (vLLM keeps seconds and multiplies by 1000 when reporting).

import { inputTokens, type RequestRecord } from '../record.js';
import type { GoodputSlos, LatencyMetric, QueueMetric } from './metric-options.js';
import { type MetricStats, metricStats } from './numpy-stats.js';
import { peaks } from './peaks.js';

export interface VllmMetricsOptions {
  /** Wall time from the run's start until every request finished (ms). */
  durationMs: number;
  /** --metric-percentiles. */
  metricPercentiles: readonly number[];
  /** --goodput; undefined or empty means not asked for (request_goodput null). */
  goodput?: GoodputSlos;
  /** --max-concurrency: with it the client-side queueing figures exist (vLLM's semaphore wait). */
  maxConcurrency?: number;
  /** --request-rate: the queue-inclusive E2EL exists only when it is finite (and --max-concurrency given). */
  requestRate?: number;
}

export interface VllmMetrics {
  completed: number;
  failed: number;
  totalInput: number;
  totalOutput: number;
  durationS: number;
  requestThroughput: number;
  requestGoodput: number | null;
  outputThroughput: number;
  totalTokenThroughput: number;
  maxOutputTokensPerS: number;
  maxConcurrentRequests: number;
  latency: Record<LatencyMetric, MetricStats>;
  /** vLLM's client_queue_time and e2el_including_client_queue, over successful requests, where they exist. */
  queue: Partial<Record<QueueMetric, MetricStats>>;
}

/** TPOT of one request in ms, or undefined when it has fewer than two output tokens. */
export function tpotMs(record: RequestRecord): number | undefined {
  if (record.outputTokens <= 1 || record.lastTokenMs === null || record.ttftMs === null) return undefined;
  return (record.lastTokenMs - record.ttftMs) / (record.outputTokens - 1);
}

/** Whether one request meets one --goodput SLO (<=); a request with one output token has no TPOT and meets it. */
export function meetsSlo(record: RequestRecord, metric: keyof GoodputSlos, limitMs: number): boolean {
  if (metric === 'tpot') return (tpotMs(record) ?? 0) <= limitMs;
  const value = metric === 'ttft' ? record.ttftMs : record.lastTokenMs;
  return (value ?? Number.POSITIVE_INFINITY) <= limitMs;
}

function meetsSlos(record: RequestRecord, slos: GoodputSlos): boolean {
  return Object.entries(slos).every(
    ([metric, limit]) => limit === undefined || meetsSlo(record, metric as keyof GoodputSlos, limit),
  );
}

function perSecond(count: number, durationS: number): number {
  return durationS > 0 ? count / durationS : 0;
}

export function vllmMetrics(records: readonly RequestRecord[], options: VllmMetricsOptions): VllmMetrics {
  const ttfts: number[] = [];
  const tpots: number[] = [];
  const itls: number[] = [];
  const e2els: number[] = [];
  let completed = 0;
  let totalInput = 0;
  let totalOutput = 0;
  let good = 0;
  const slos = options.goodput;
  const goodputAsked = slos !== undefined && Object.keys(slos).length > 0;

  for (const record of records) {
    if (record.outcome !== 'ok') continue;
    completed++;
    totalInput += inputTokens(record);
    totalOutput += record.outputTokens;
    if (record.ttftMs !== null) ttfts.push(record.ttftMs);
    if (record.lastTokenMs !== null) e2els.push(record.lastTokenMs);
    const tpot = tpotMs(record);
    if (tpot !== undefined) tpots.push(tpot);
    for (const gap of record.itlMs) itls.push(gap);
    if (goodputAsked && meetsSlos(record, slos)) good++;
  }

  const durationS = options.durationMs / 1000;
  const wanted = options.metricPercentiles;
  const ok = records.filter((r) => r.outcome === 'ok');
  const queue: Partial<Record<QueueMetric, MetricStats>> = {};
  if (options.maxConcurrency !== undefined) {
    queue.client_queue_time = metricStats(
      ok.map((r) => r.clientQueueMs),
      wanted,
    );
    if (Number.isFinite(options.requestRate ?? Number.POSITIVE_INFINITY))
      queue.e2el_including_client_queue = metricStats(
        ok.map((r) => (r.lastTokenMs ?? 0) + r.clientQueueMs),
        wanted,
      );
  }
  const { maxOutputTokensPerS, maxConcurrentRequests } = peaks(records);
  return {
    completed,
    failed: records.length - completed,
    totalInput,
    totalOutput,
    durationS,
    requestThroughput: perSecond(completed, durationS),
    requestGoodput: goodputAsked ? perSecond(good, durationS) : null,
    outputThroughput: perSecond(totalOutput, durationS),
    totalTokenThroughput: perSecond(totalInput + totalOutput, durationS),
    maxOutputTokensPerS,
    maxConcurrentRequests,
    latency: {
      ttft: metricStats(ttfts, wanted),
      tpot: metricStats(tpots, wanted),
      itl: metricStats(itls, wanted),
      e2el: metricStats(e2els, wanted),
    },
    queue,
  };
}
