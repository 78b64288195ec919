// What `compare` resamples, taken from a run's per-request records by the same rules as the summary's figures
// (loadgen/metrics/vllm-metrics.ts, extra-metrics.ts): latencies of completed requests, TTFB of every answer,
// success per request, and the amounts behind each rate placed in time windows.

import { tpotMs } from '../metrics/vllm-metrics.js';
import type { RequestRecord } from '../record.js';
import { RATE_WINDOWS, type RequestValues } from './bootstrap.js';

/** The per-request samples the rows draw on. `ok`: 1 per completed request, 0 otherwise; `failed` the reverse. */
export type SampleName = 'ttft' | 'ttfo' | 'tpot' | 'itl' | 'e2el' | 'ttfb' | 'ok' | 'failed';

/** What a rate counts: completed requests, their output tokens, or their input and output tokens. */
export type RateAmount = 'requests' | 'output_tokens' | 'total_tokens';

/**
 * Percentiles of a sample with more values than this (the pooled gaps of a long run: 10,000 requests of 200 tokens
 * are 2 million) are taken from every k-th value in record order, a uniform subsample in which each request keeps
 * its share of its own gaps: the resampling stays fast (docs/reports.md has the timings), and the percentile of
 * 50,000 values is within 0.05 percentile points (in rank) of the whole sample's at p99. Means and sums always
 * use every value.
 */
export const MAX_POOLED_VALUES = 50_000;

function valuesOf(record: RequestRecord, name: SampleName): readonly number[] {
  const ok = record.outcome === 'ok';
  switch (name) {
    case 'ok':
      return [ok ? 1 : 0];
    case 'failed':
      return [ok ? 0 : 1];
    case 'ttfb':
      return record.ttfbMs === null ? [] : [record.ttfbMs];
    case 'ttft':
      return ok && record.ttftMs !== null ? [record.ttftMs] : [];
    case 'ttfo':
      return ok && record.ttfoMs != null ? [record.ttfoMs] : [];
    case 'e2el':
      return ok && record.lastTokenMs !== null ? [record.lastTokenMs] : [];
    case 'tpot': {
      const tpot = ok ? tpotMs(record) : undefined;
      return tpot === undefined ? [] : [tpot];
    }
    case 'itl':
      return ok ? record.itlMs : [];
  }
}

/** The sample, sorted, each value tagged with its request's position in `records`. */
export function requestValues(records: readonly RequestRecord[], name: SampleName): RequestValues {
  const all: number[] = [];
  const allOwners: number[] = [];
  const countPerRequest = new Float64Array(records.length);
  const sumPerRequest = new Float64Array(records.length);
  records.forEach((record, owner) => {
    for (const value of valuesOf(record, name)) {
      all.push(value);
      allOwners.push(owner);
      countPerRequest[owner] = (countPerRequest[owner] as number) + 1;
      sumPerRequest[owner] = (sumPerRequest[owner] as number) + value;
    }
  });
  const step = Math.ceil(all.length / MAX_POOLED_VALUES);
  const order: number[] = [];
  for (let i = 0; i < all.length; i += Math.max(1, step)) order.push(i);
  order.sort((a, b) => (all[a] as number) - (all[b] as number));
  const owners = Uint32Array.from(order, (i) => allOwners[i] as number);
  // Not thinned: the very same array, which tells the resampler it need not add it up twice.
  let keptPerRequest = countPerRequest;
  if (step > 1) {
    keptPerRequest = new Float64Array(records.length);
    for (const owner of owners) keptPerRequest[owner] = (keptPerRequest[owner] as number) + 1;
  }
  return {
    values: Float64Array.from(order, (i) => all[i] as number),
    owners,
    keptPerRequest,
    countPerRequest,
    sumPerRequest,
  };
}

/** How many requests have at least one value in the sample (the units actually resampled). */
export function requestsWithValues(sample: RequestValues): number {
  return sample.countPerRequest.reduce((n, count) => (count > 0 ? n + 1 : n), 0);
}

/** How many values the sample has before any thinning. */
export function valueCount(sample: RequestValues): number {
  return sample.countPerRequest.reduce((n, count) => n + count, 0);
}

function amountOf(record: RequestRecord, amount: RateAmount): number {
  if (amount === 'requests') return 1;
  return amount === 'output_tokens' ? record.outputTokens : record.promptTokens + record.outputTokens;
}

/**
 * Each completed request's amount in the window where its last token arrived (as the summary counts it: once the
 * request is done), over RATE_WINDOWS equal windows of the run's duration.
 */
export function windowSums(
  records: readonly RequestRecord[],
  durationMs: number,
  amount: RateAmount,
): Float64Array {
  const sums = new Float64Array(RATE_WINDOWS);
  for (const record of records) {
    if (record.outcome !== 'ok' || record.sentAtMs === null) continue;
    const doneAt = record.sentAtMs + (record.lastTokenMs ?? 0);
    const window = Math.min(RATE_WINDOWS - 1, Math.max(0, Math.floor((doneAt / durationMs) * RATE_WINDOWS)));
    sums[window] = (sums[window] as number) + amountOf(record, amount);
  }
  return sums;
}
