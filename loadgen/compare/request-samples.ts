// What `compare` resamples, taken from a run's per-request records by the same rules as the summary's figures
// (loadgen/metrics/vllm-metrics.ts, extra-metrics.ts): latencies of completed requests, TTFB of every answer,
// success per request, and the amounts behind each rate placed in time windows.

import { tpotMs } from '../metrics/vllm-metrics.js';
import type { RequestRecord } from '../record.js';
import { RATE_WINDOWS, type RequestValues } from './bootstrap.js';

/** The per-request samples the rows draw on. `ok`: 1 per completed request, 0 otherwise; `failed` the reverse. */
export type SampleName = 'ttft' | 'tpot' | 'itl' | 'e2el' | 'ttfb' | 'ok' | 'failed';

/** What a rate counts: completed requests, their output tokens, or their input and output tokens. */
export type RateAmount = 'requests' | 'output_tokens' | 'total_tokens';

/**
 * Pooled gaps beyond this are thinned to every k-th of the sorted gaps, so a 10,000-request run with long answers
 * resamples in about a second; each kept gap stays with its own request, and ranks move by at most k / gaps.
 */
export const MAX_POOLED_VALUES = 100_000;

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
  const pairs: Array<[number, number]> = [];
  records.forEach((record, owner) => {
    for (const value of valuesOf(record, name)) pairs.push([value, owner]);
  });
  pairs.sort((a, b) => a[0] - b[0]);
  const step = Math.ceil(pairs.length / MAX_POOLED_VALUES);
  const kept = step <= 1 ? pairs : pairs.filter((_, i) => i % step === Math.floor(step / 2));
  return {
    values: Float64Array.from(kept, (pair) => pair[0]),
    owners: Uint32Array.from(kept, (pair) => pair[1]),
  };
}

/** How many requests have at least one value in the sample (the units actually resampled). */
export function requestsWithValues(sample: RequestValues): number {
  return new Set(sample.owners).size;
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
