// What vLLM does not report but a user needs to trust (or distrust) a run:
// - success rate, and failures by kind with the first error and body of each (vLLM keeps only "Not Found");
// - TTFB (first response byte), which separates connection/queueing time at the server from prefill;
// - tokens per chunk, which tells whether ITL is per token or per batch of tokens;
// - schedule lag (how late the load generator itself sent, beyond the concurrency wait) and client queue
//   time (waiting for a --max-concurrency slot): when these grow, the client, not the server, is limiting;
// - where output token counts came from (server usage, or our tokenizer);
// - for reasoning models, the time to first output token (TTFO: the first answer token, reasoning excluded), how
//   long the model reasoned before answering, and its reasoning tokens: vLLM's TTFT stops at the first reasoning
//   token, which is not when the user sees the answer begin;
// - with --per-chunk-usage (a running usage on every chunk), the share of chunks that carried more than one token
//   and the inter-token gaps per token (src/measure/stream-figures.ts), where vLLM's ITL counts one per chunk.

import { type Outcome, PLANNED_CANCEL } from '../../src/measure/outcome.js';
import { perTokenGaps } from '../../src/measure/stream-figures.js';
import { type RequestRecord, scheduleLagMs } from '../record.js';
import { type MetricStats, metricStats } from './numpy-stats.js';

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
  /** Successful requests' time to first output token (answer, reasoning excluded), from the send. */
  ttfo: MetricStats;
  /** Successful requests' reasoning time: TTFO - TTFT (0 for a request that did not reason). */
  reasoningTime: MetricStats;
  /** Reasoning tokens of the successful requests, and how many of them reasoned at all. */
  reasoning: { tokens: number; requests: number };
  tokensPerChunk: MetricStats;
  /**
   * Successful requests whose every content chunk carried a running usage (--per-chunk-usage), their chunks and
   * those of more than one token; all 0 without such a usage.
   */
  chunkUsage: { requests: number; chunks: number; multiTokenChunks: number };
  /** Their inter-token gaps per token, pooled over requests as vLLM pools its ITL. */
  perTokenItl: MetricStats;
  scheduleLag: MetricStats;
  clientQueue: MetricStats;
  outputTokenSources: { usage: number; tokenizer: number };
  /**
   * Input tokens of the successful requests by our own tokenizer (vLLM's total_input_tokens takes the server's
   * usage where it said, chat template included), and how many of them had the server's count.
   */
  inputTokens: { byTokenizer: number; requestsWithServerCount: number };
}

function failuresByKind(records: readonly RequestRecord[]): ExtraMetrics['failuresByKind'] {
  const kinds: ExtraMetrics['failuresByKind'] = {};
  for (const record of records) {
    // A planned cancellation is no failure (the figures are computed without them: loadgen/cancellation/).
    if (record.outcome === 'ok' || record.outcome === PLANNED_CANCEL) continue;
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
  const ttfos: number[] = [];
  const reasoningTimes: number[] = [];
  const reasoning = { tokens: 0, requests: 0 };
  const perChunk: number[] = [];
  const chunkUsage = { requests: 0, chunks: 0, multiTokenChunks: 0 };
  const perTokenItls: number[] = [];
  const lags: number[] = [];
  const queues: number[] = [];
  const sources = { usage: 0, tokenizer: 0 };
  const inputTokens = { byTokenizer: 0, requestsWithServerCount: 0 };
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
    inputTokens.byTokenizer += record.promptTokens;
    if (record.usagePromptTokens !== undefined) inputTokens.requestsWithServerCount++;
    if (record.ttfoMs != null) {
      ttfos.push(record.ttfoMs);
      if (record.ttftMs !== null) reasoningTimes.push(record.ttfoMs - record.ttftMs);
    }
    if (record.reasoningTokens != null && record.reasoningTokens > 0) {
      reasoning.tokens += record.reasoningTokens;
      reasoning.requests++;
    }
    const chunkTokens = record.chunkTokens;
    if (chunkTokens !== undefined) {
      chunkUsage.requests++;
      chunkUsage.chunks += record.contentChunks;
      chunkUsage.multiTokenChunks += record.multiTokenChunks ?? 0;
      perTokenGaps(record.itlMs, chunkTokens, perTokenItls);
    }
    // With a running usage on every chunk, the chunks' own tokens (those counted after the last chunk excluded).
    const chunkTokenSum = chunkTokens?.reduce((sum, tokens) => sum + tokens, 0);
    if (record.contentChunks > 0)
      perChunk.push((chunkTokenSum ?? record.outputTokens) / record.contentChunks);
  }
  return {
    total: records.length,
    successRate: records.length === 0 ? 0 : completed / records.length,
    failuresByKind: failuresByKind(records),
    ttfb: metricStats(ttfbs, wantedPercentiles),
    ttfo: metricStats(ttfos, wantedPercentiles),
    reasoningTime: metricStats(reasoningTimes, wantedPercentiles),
    reasoning,
    tokensPerChunk: metricStats(perChunk, wantedPercentiles),
    chunkUsage,
    perTokenItl: metricStats(perTokenItls, wantedPercentiles),
    scheduleLag: metricStats(lags, wantedPercentiles),
    clientQueue: metricStats(queues, wantedPercentiles),
    outputTokenSources: sources,
    inputTokens,
  };
}
