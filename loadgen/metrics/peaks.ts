// vLLM's two "peak" figures, from 1-second bins laid from the first send:
// - peak output token throughput: the most token-bearing CHUNKS whose arrival falls in one bin (vLLM counts
//   chunk events, not tokens, so servers that batch several tokens per chunk look slower here);
// - peak concurrent requests: the most successful requests whose [start second, end second] span covers one
//   bin (a request active for any part of a second counts for that whole second).
// Both count successful requests only; the bins span every sent request, as vLLM's do.

import type { RequestRecord } from '../record.js';

export interface Peaks {
  maxOutputTokensPerS: number;
  maxConcurrentRequests: number;
}

function endMs(record: RequestRecord, sentAtMs: number): number {
  return sentAtMs + (record.lastTokenMs ?? 0);
}

/** Arrival times (ms after run start) of a request's token-bearing chunks: first token, then each gap. */
export function chunkTimesMs(record: RequestRecord): number[] {
  if (record.sentAtMs === null || record.ttftMs === null) return [];
  const times = [record.sentAtMs + record.ttftMs];
  let at = times[0] as number;
  for (const gap of record.itlMs) {
    at += gap;
    times.push(at);
  }
  return times;
}

export function peaks(records: readonly RequestRecord[]): Peaks {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const record of records) {
    if (record.sentAtMs === null) continue;
    first = Math.min(first, record.sentAtMs);
    last = Math.max(last, endMs(record, record.sentAtMs));
  }
  if (first === Number.POSITIVE_INFINITY) return { maxOutputTokensPerS: 0, maxConcurrentRequests: 0 };

  const bins = Math.ceil((last - first) / 1000) + 1;
  const chunksPerBin = new Float64Array(bins);
  const activePerBin = new Float64Array(bins);
  for (const record of records) {
    if (record.outcome !== 'ok' || record.sentAtMs === null) continue;
    for (const at of chunkTimesMs(record)) {
      const bin = Math.trunc((at - first) / 1000);
      if (bin >= 0 && bin < bins) chunksPerBin[bin] = (chunksPerBin[bin] as number) + 1;
    }
    const startBin = Math.trunc((record.sentAtMs - first) / 1000);
    const endBin = Math.trunc((endMs(record, record.sentAtMs) - first) / 1000);
    for (let bin = startBin; bin <= endBin && bin < bins; bin++)
      activePerBin[bin] = (activePerBin[bin] as number) + 1;
  }
  let maxChunks = 0;
  let maxActive = 0;
  for (let bin = 0; bin < bins; bin++) {
    maxChunks = Math.max(maxChunks, chunksPerBin[bin] as number);
    maxActive = Math.max(maxActive, activePerBin[bin] as number);
  }
  return { maxOutputTokensPerS: maxChunks, maxConcurrentRequests: maxActive };
}
