// One row of a sweep: what was offered, what the server achieved, and the latency figures people compare across
// rates. "Achieved" is the completion rate while the server was busy ((completed - 1) / the time between the first
// and last completion), not vLLM's completed / duration, which the tail of the last request drags down on short
// levels even when the server keeps up; "sent" is measured the same way over the sends.

import type { BenchRunResult } from '../bench/run-bench.js';
import { percentile } from '../metrics/numpy-stats.js';
import { tpotMs } from '../metrics/vllm-metrics.js';
import type { RequestRecord } from '../record.js';

export interface SweepLevel {
  /** Offered rate (req/s); Infinity for the saturation probe. */
  offeredRps: number;
  requests: number;
  successRate: number;
  /** Rate at which requests actually went out. */
  sentRps: number;
  /** Rate at which they completed. */
  achievedRps: number;
  ttftP50Ms: number;
  ttftP99Ms: number;
  tpotMeanMs: number;
  itlP99Ms: number;
  outputTokPerS: number;
  /** Share of all requests meeting every --goodput SLO; null without --goodput. */
  sloAttainment: number | null;
  resultFile: string;
}

function ratePerSecond(times: number[]): number {
  if (times.length < 2) return 0;
  times.sort((a, b) => a - b);
  const span = (times[times.length - 1] as number) - (times[0] as number);
  return span > 0 ? ((times.length - 1) / span) * 1000 : Number.POSITIVE_INFINITY;
}

function pct(values: number[], p: number): number {
  return values.length === 0 ? 0 : percentile(values, p);
}

function endOf(r: RequestRecord): number | undefined {
  return r.sentAtMs === null || r.lastTokenMs === null ? undefined : r.sentAtMs + r.lastTokenMs;
}

export function sweepLevel(offeredRps: number, result: BenchRunResult, resultFile: string): SweepLevel {
  const ok = result.records.filter((r) => r.outcome === 'ok');
  const ttfts = ok.map((r) => r.ttftMs).filter((v): v is number => v !== null);
  const tpots = ok.map(tpotMs).filter((v): v is number => v !== undefined);
  const itls = ok.flatMap((r) => r.itlMs);
  const total = result.records.length;
  const good = result.metrics.requestGoodput;
  return {
    offeredRps,
    requests: total,
    successRate: total === 0 ? 0 : ok.length / total,
    sentRps: ratePerSecond(result.records.map((r) => r.sentAtMs).filter((v): v is number => v !== null)),
    achievedRps: ratePerSecond(ok.map(endOf).filter((v): v is number => v !== undefined)),
    ttftP50Ms: pct(ttfts, 50),
    ttftP99Ms: pct(ttfts, 99),
    tpotMeanMs: tpots.length === 0 ? 0 : tpots.reduce((a, b) => a + b, 0) / tpots.length,
    itlP99Ms: pct(itls, 99),
    outputTokPerS: result.metrics.outputThroughput,
    sloAttainment: good === null || total === 0 ? null : (good * result.metrics.durationS) / total,
    resultFile,
  };
}
