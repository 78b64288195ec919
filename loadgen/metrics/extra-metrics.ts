// What vLLM does not report but a user needs to trust (or distrust) a run:
// - success rate, and failures by kind with the first error and body of each (vLLM keeps only "Not Found");
// - TTFB (first response byte), which separates connection/queueing time at the server from prefill;
// - tokens per chunk, which tells whether ITL is per token or per batch of tokens;
// - schedule lag (how late the load generator itself sent, beyond the concurrency wait) and client queue
//   time (waiting for a --max-concurrency slot): when these grow, the client, not the server, is limiting;
// - where output token counts came from (server usage, or our tokenizer).

import type { Outcome } from '../../src/measure/outcome.js';
import { type RequestRecord, scheduleLagMs } from '../record.js';
import { type MetricStats, metricStats } from './metric-stats.js';

export interface FailureKind {
  count: number;
  /** First failing request of this kind, for the user to look at. */
  firstIndex: number;
  firstError: string | null;
  firstBodyExcerpt: string | null;
  /** HTTP statuses seen for this kind, with counts. */
  statuses: Record<string, number>;
}

export interface ExtraMetrics {
  total: number;
  /** Share of requests that completed (0..1); 0 when there were none. */
  successRate: number;
  failuresByKind: Partial<Record<Exclude<Outcome, 'ok'>, FailureKind>>;
  ttfb: MetricStats;
  tokensPerChunk: MetricStats;
  scheduleLag: MetricStats;
  clientQueue: MetricStats;
  outputTokenSources: { usage: number; tokenizer: number };
}

function failuresByKind(records: readonly RequestRecord[]): ExtraMetrics['failuresByKind'] {
  const kinds: ExtraMetrics['failuresByKind'] = {};
  for (const record of records) {
    if (record.outcome === 'ok') continue;
    let kind = kinds[record.outcome];
    if (kind === undefined) {
      kind = {
        count: 0,
        firstIndex: record.index,
        firstError: record.error,
        firstBodyExcerpt: record.errorBodyExcerpt,
        statuses: {},
      };
      kinds[record.outcome] = kind;
    }
    kind.count++;
    if (record.status !== null) kind.statuses[record.status] = (kind.statuses[record.status] ?? 0) + 1;
  }
  return kinds;
}

export function extraMetrics(
  records: readonly RequestRecord[],
  wantedPercentiles: readonly number[],
): ExtraMetrics {
  const ttfbs: number[] = [];
  const perChunk: number[] = [];
  const lags: number[] = [];
  const queues: number[] = [];
  const sources = { usage: 0, tokenizer: 0 };
  let completed = 0;
  for (const record of records) {
    if (record.ttfbMs !== null) ttfbs.push(record.ttfbMs);
    const lag = scheduleLagMs(record);
    if (lag !== null) {
      lags.push(lag);
      queues.push(record.clientQueueMs);
    }
    if (record.outcome !== 'ok') continue;
    completed++;
    sources[record.outputTokensSource]++;
    if (record.contentChunks > 0) perChunk.push(record.outputTokens / record.contentChunks);
  }
  return {
    total: records.length,
    successRate: records.length === 0 ? 0 : completed / records.length,
    failuresByKind: failuresByKind(records),
    ttfb: metricStats(ttfbs, wantedPercentiles),
    tokensPerChunk: metricStats(perChunk, wantedPercentiles),
    scheduleLag: metricStats(lags, wantedPercentiles),
    clientQueue: metricStats(queues, wantedPercentiles),
    outputTokenSources: sources,
  };
}
