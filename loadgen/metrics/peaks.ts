// vLLM's two "peak" figures, from 1-second bins laid from the first send:
// - peak output token throughput: the most token-bearing CHUNKS whose arrival falls in one bin (vLLM counts
//   chunk events, not tokens, so servers that batch several tokens per chunk look slower here);
// - peak concurrent requests: the most successful requests in flight at one instant (vLLM 009e6d4a's sweep over
//   [start, end) intervals; older versions counted a request for every second it touched, which overstates it).
// Both count successful requests only, and the bins start at the first successful send, as vLLM's do.

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
  const ok = records.filter((r) => r.outcome === 'ok' && r.sentAtMs !== null);
  if (ok.length === 0) return { maxOutputTokensPerS: 0, maxConcurrentRequests: 0 };
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const record of ok) {
    first = Math.min(first, record.sentAtMs as number);
    last = Math.max(last, endMs(record, record.sentAtMs as number));
  }
  const bins = Math.ceil((last - first) / 1000) + 1;
  const chunksPerBin = new Float64Array(bins);
  for (const record of ok) {
    for (const at of chunkTimesMs(record)) {
      const bin = Math.trunc((at - first) / 1000);
      if (bin >= 0 && bin < bins) chunksPerBin[bin] = (chunksPerBin[bin] as number) + 1;
    }
  }
  let maxChunks = 0;
  for (let bin = 0; bin < bins; bin++) maxChunks = Math.max(maxChunks, chunksPerBin[bin] as number);
  return { maxOutputTokensPerS: maxChunks, maxConcurrentRequests: peakConcurrency(ok) };
}

/** The most requests in flight at one instant: a sweep over their half-open [start, end) intervals, an end
 *  before a start at the same instant. */
function peakConcurrency(records: readonly RequestRecord[]): number {
  const events: Array<[number, number]> = [];
  for (const record of records) {
    const start = record.sentAtMs as number;
    events.push([start, 1], [endMs(record, start), -1]);
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let current = 0;
  let peak = 0;
  for (const [, delta] of events) {
    current += delta;
    peak = Math.max(peak, current);
  }
  return peak;
}
