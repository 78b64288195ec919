// The steady part of a rate level. A level starts empty (nothing in flight, the server idle) and ends with a
// drain (the last sends finishing with nothing behind them): neither is what the server does at that rate. The
// first WARMUP_SHARE of the schedule is warm-up and everything after the last intended send is drain; the
// level's figures come from the window between. Achieved and offered are counted in that window (completions
// by the time they completed, requests by the time they were due), and the window is cut in BINS equal parts
// so each rate comes with its spread.
// A concurrency level (every request due at once, at most N in flight) has no schedule: its requests are due when a
// seat frees, so its window is laid on the times they were sent instead (the 'sends' clock), and what it was
// offered is what it sent.

import { std } from '../metrics/numpy-stats.js';
import type { RequestRecord } from '../record.js';

export const WARMUP_SHARE = 0.2;
const BINS = 5;

export interface RateSpread {
  /** Over the whole window. */
  rps: number;
  /** Lowest and highest over the window's bins. */
  minRps: number;
  maxRps: number;
}

export interface SteadyWindow {
  /** Window bounds, ms after the level's start. */
  startMs: number;
  endMs: number;
  /** Requests due in the window (their latency figures are the level's). */
  requests: RequestRecord[];
  warmupRequests: number;
  /** From the last intended send to the last completion, and the completions in that time. */
  drainMs: number;
  drainCompletions: number;
  /** Requests due per second (the schedule), sent per second, completed per second. */
  offered: RateSpread;
  sent: RateSpread;
  achieved: RateSpread;
  /**
   * Output tokens of the requests that completed in the window: past the knee the window's own requests finish
   * long after it, so counting theirs would credit the server with tokens it had not yet sent.
   */
  completedOutputTokens: number;
  /** Completed over offered (or sent, when fewer were sent), and the standard error of that ratio over bins. */
  followRatio: number;
  followSpread: number;
}

const completedAt = (r: RequestRecord): number | undefined =>
  r.outcome === 'ok' && r.sentAtMs !== null && r.lastTokenMs !== null
    ? r.sentAtMs + r.lastTokenMs
    : undefined;

function binCounts(times: readonly number[], startMs: number, binMs: number): number[] {
  const counts = new Array<number>(BINS).fill(0);
  for (const t of times) {
    const bin = Math.floor((t - startMs) / binMs);
    if (bin >= 0 && bin < BINS) counts[bin] = (counts[bin] as number) + 1;
    else if (t === startMs + BINS * binMs) counts[BINS - 1] = (counts[BINS - 1] as number) + 1;
  }
  return counts;
}

function spread(counts: readonly number[], binMs: number): RateSpread {
  const perSecond = counts.map((c) => (c / binMs) * 1000);
  const total = counts.reduce((a, b) => a + b, 0);
  return {
    rps: (total / (binMs * BINS)) * 1000,
    minRps: perSecond.reduce((a, b) => Math.min(a, b)),
    maxRps: perSecond.reduce((a, b) => Math.max(a, b)),
  };
}

/** When a request was due: on its schedule, or (a concurrency level) when it was sent. */
export type WindowClock = 'schedule' | 'sends';

export function steadyWindow(
  records: readonly RequestRecord[],
  clock: WindowClock = 'schedule',
): SteadyWindow {
  const dueAt = (r: RequestRecord): number =>
    clock === 'sends' ? (r.sentAtMs ?? r.intendedOffsetMs) : r.intendedOffsetMs;
  const lastDueMs = records.reduce((last, r) => Math.max(last, dueAt(r)), 0);
  const startMs = lastDueMs * WARMUP_SHARE;
  const binMs = Math.max((lastDueMs - startMs) / BINS, Number.MIN_VALUE);
  const inWindow = (t: number): boolean => t >= startMs && t <= lastDueMs;
  const requests = records.filter((r) => inWindow(dueAt(r)));
  const completions = records.map(completedAt).filter((t): t is number => t !== undefined);
  const due = binCounts(records.map(dueAt), startMs, binMs);
  const sent = binCounts(
    records.map((r) => r.sentAtMs).filter((t): t is number => t !== null),
    startMs,
    binMs,
  );
  const done = binCounts(completions, startMs, binMs);
  const ratios = done.map((c, i) => c / Math.max(1, Math.min(due[i] as number, sent[i] as number)));
  const dueTotal = due.reduce((a, b) => a + b, 0);
  const sentTotal = sent.reduce((a, b) => a + b, 0);
  const doneTotal = done.reduce((a, b) => a + b, 0);
  const drain = completions.filter((t) => t > lastDueMs);
  const completedOutputTokens = records.reduce((sum, r) => {
    const t = completedAt(r);
    return t !== undefined && inWindow(t) ? sum + r.outputTokens : sum;
  }, 0);
  return {
    startMs,
    endMs: lastDueMs,
    requests,
    warmupRequests: records.filter((r) => dueAt(r) < startMs).length,
    drainMs: drain.reduce((last, t) => Math.max(last, t), lastDueMs) - lastDueMs,
    drainCompletions: drain.length,
    offered: spread(due, binMs),
    sent: spread(sent, binMs),
    achieved: spread(done, binMs),
    completedOutputTokens,
    followRatio: doneTotal / Math.max(1, Math.min(dueTotal, sentTotal)),
    followSpread: std(ratios) / Math.sqrt(BINS) || 0,
  };
}
