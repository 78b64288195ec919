// One row of a sweep: what was offered, what the server achieved, and the latency figures people compare across
// rates, all from the level's steady window (steady-window.ts), with the warm-up and the drain counted apart.
// The level's status says whether it kept up, fell behind (and by which rule, with its numbers), or cannot tell.
// A level that --stop-on-saturation or --max-error-rate cut short fell behind: the rule that stopped it is the
// evidence, and the few requests it left in a steady window cannot say "unclear" over it.

import type { BenchRunResult } from '../bench/aggregate.js';
import { stopReasonOf } from '../bench/features.js';
import { type EarlyStop, FOLLOW_RATIO } from '../early-stop/early-stop.js';
import { earlyStopFeature } from '../early-stop/early-stop-feature.js';
import { partOf } from '../feature.js';
import { gpuFeature } from '../gpu-metrics/gpu-feature.js';
import { type GpuTotals, summarizeGpus } from '../gpu-metrics/gpu-summary.js';
import type { GoodputSlos } from '../metrics/metric-options.js';
import { percentile } from '../metrics/numpy-stats.js';
import { meetsSlo, tpotMs } from '../metrics/vllm-metrics.js';
import { cancelledByRun, type RequestRecord } from '../record.js';
import {
  type ClientTtft,
  clientTtftOf,
  serverMetricsFeature,
} from '../server-metrics/server-metrics-feature.js';
import type { ServerSummary } from '../server-metrics/server-summary.js';
import { type RateSpread, type SteadyWindow, steadyWindow } from './steady-window.js';

/** A level keeps up while it completes at least FOLLOW_RATIO of what it was offered (early-stop.ts), and while at
 * least this share of its requests succeed, and (with --goodput) meet each SLO. */
export const SLO_ATTAINMENT = 0.9;
/** Fewer requests than this in the steady window cannot show a rate. */
export const MIN_STEADY_REQUESTS = 20;

export type LevelStatus = 'kept-up' | 'fell-behind' | 'unclear';

export interface SweepLevel {
  /** Offered rate (req/s) as configured: Infinity for a concurrency level. */
  offeredRps: number;
  /** A concurrency level's --max-concurrency (its load, at an unbounded rate); absent for a rate level. */
  concurrency?: number;
  requests: number;
  /** Requests due in the steady window, and before it (warm-up). */
  steadyRequests: number;
  /** Of the steady window's requests, those the run cut itself (its early stop, Ctrl-C, a planned cancellation). */
  steadyCancelled: number;
  warmupRequests: number;
  /** After the last intended send: how long until the last completion, and how many completed then. */
  drainS: number;
  drainCompletions: number;
  /** Success over the steady window's requests, those the run cut itself left out. */
  successRate: number;
  /** In the steady window: due, sent and completed per second, each with its spread over the window's bins. */
  offered: RateSpread;
  sent: RateSpread;
  achieved: RateSpread;
  followRatio: number;
  followSpread: number;
  /** Completed rate over the window (the same as achieved.rps). */
  achievedRps: number;
  ttftP50Ms: number;
  ttftP99Ms: number;
  tpotMeanMs: number;
  itlP99Ms: number;
  outputTokPerS: number;
  /** Share of the window's requests meeting every --goodput SLO; null without --goodput. */
  sloAttainment: number | null;
  /** The --goodput SLO met by the fewest (its name and share), null without --goodput. */
  worstSlo: { name: string; limitMs: number; attainment: number } | null;
  /** The server's own metrics over the level (loadgen/server-metrics/), null without them. */
  server?: ServerSummary | null;
  /** The client's TTFT over all of the level's requests, as the server's histogram covers them; with `server`. */
  clientTtft?: ClientTtft | null;
  /** The GPUs over the whole level (not only its steady window), with energy per output token; null without GPU
   *  figures (loadgen/gpu-metrics/). */
  gpu?: GpuTotals | null;
  /** Why --stop-on-saturation or --max-error-rate cut the level short, when one did. */
  earlyStop?: EarlyStop;
  status: LevelStatus;
  /** Why, with the numbers: what broke, or why it cannot tell; empty when it kept up. */
  reason: string;
  resultFile: string;
}

function pct(values: number[], p: number): number {
  return values.length === 0 ? 0 : percentile(values, p);
}

const share = (value: number): string => `${(value * 100).toFixed(0)}%`;

/** "achieved 83.10 req/s (bins 80.20-86.00) of 100.00 req/s (bins 97.50-103.10) offered: 83% ± 2%" */
export function followEvidence(
  level: Pick<SweepLevel, 'achieved' | 'offered' | 'followRatio' | 'followSpread'>,
): string {
  const rate = (r: RateSpread): string =>
    `${r.rps.toFixed(2)} req/s (bins ${r.minRps.toFixed(2)}-${r.maxRps.toFixed(2)})`;
  return (
    `achieved ${rate(level.achieved)} of ${rate(level.offered)} offered: ` +
    `${share(level.followRatio)} ± ${share(level.followSpread)}`
  );
}

function worstSlo(requests: readonly RequestRecord[], slos: GoodputSlos | undefined): SweepLevel['worstSlo'] {
  if (slos === undefined || requests.length === 0) return null;
  let worst: SweepLevel['worstSlo'] = null;
  for (const [name, limitMs] of Object.entries(slos)) {
    if (limitMs === undefined) continue;
    const met = requests.filter(
      (r) => r.outcome === 'ok' && meetsSlo(r, name as keyof GoodputSlos, limitMs),
    ).length;
    const attainment = met / requests.length;
    if (worst === null || attainment < worst.attainment) worst = { name, limitMs, attainment };
  }
  return worst;
}

function judge(
  window: SteadyWindow,
  successRate: number,
  slo: SweepLevel['worstSlo'],
  stoppedBy: string | undefined,
): [LevelStatus, string] {
  if (stoppedBy !== undefined) return ['fell-behind', stoppedBy];
  const n = window.requests.length;
  if (n < MIN_STEADY_REQUESTS) {
    return ['unclear', `only ${n} requests in its steady window (at least ${MIN_STEADY_REQUESTS} needed)`];
  }
  if (successRate < SLO_ATTAINMENT)
    return ['fell-behind', `only ${share(successRate)} of requests succeeded`];
  const evidence = followEvidence(window);
  if (window.followRatio + window.followSpread < FOLLOW_RATIO) {
    return ['fell-behind', `${evidence}, under ${share(FOLLOW_RATIO)}`];
  }
  if (window.followRatio - window.followSpread < FOLLOW_RATIO) {
    return ['unclear', `${evidence}: too close to ${share(FOLLOW_RATIO)} to tell`];
  }
  if (slo !== null && slo.attainment < SLO_ATTAINMENT) {
    return [
      'fell-behind',
      `only ${share(slo.attainment)} of requests met the ${slo.name} SLO of ${slo.limitMs} ms`,
    ];
  }
  return ['kept-up', ''];
}

export function sweepLevel(
  offeredRps: number,
  result: BenchRunResult,
  resultFile: string,
  slos: GoodputSlos | undefined,
  concurrency?: number,
): SweepLevel {
  const window = steadyWindow(result.records, concurrency === undefined ? 'schedule' : 'sends');
  // The requests the run cut itself (its early stop, Ctrl-C, a planned cancellation) are no failures of the
  // server: the level's success and SLOs are over the others, as a bench run's figures are.
  const steady = window.requests.filter((r) => !cancelledByRun(r));
  const ok = steady.filter((r) => r.outcome === 'ok');
  const ttfts = ok.map((r) => r.ttftMs).filter((v): v is number => v !== null);
  const tpots = ok.map(tpotMs).filter((v): v is number => v !== undefined);
  const itls = ok.flatMap((r) => r.itlMs);
  const successRate = steady.length === 0 ? 0 : ok.length / steady.length;
  const hasSlos = slos !== undefined && Object.keys(slos).length > 0;
  const meetsAll = (r: RequestRecord): boolean =>
    r.outcome === 'ok' &&
    Object.entries(slos ?? {}).every(
      ([name, limit]) => limit === undefined || meetsSlo(r, name as keyof GoodputSlos, limit),
    );
  const slo = hasSlos ? worstSlo(steady, slos) : null;
  const sloAttainment = hasSlos && steady.length > 0 ? steady.filter(meetsAll).length / steady.length : null;
  const [status, reason] = judge(window, successRate, slo, stopReasonOf(result.parts));
  const earlyStop = partOf(result.parts, earlyStopFeature);
  const server = partOf(result.parts, serverMetricsFeature)?.run;
  const gpus = partOf(result.parts, gpuFeature);
  const windowS = (window.endMs - window.startMs) / 1000;
  return {
    offeredRps,
    ...(concurrency === undefined ? {} : { concurrency }),
    requests: result.records.length,
    steadyRequests: window.requests.length,
    steadyCancelled: window.requests.length - steady.length,
    warmupRequests: window.warmupRequests,
    drainS: window.drainMs / 1000,
    drainCompletions: window.drainCompletions,
    successRate,
    offered: window.offered,
    sent: window.sent,
    achieved: window.achieved,
    followRatio: window.followRatio,
    followSpread: window.followSpread,
    achievedRps: window.achieved.rps,
    ttftP50Ms: pct(ttfts, 50),
    ttftP99Ms: pct(ttfts, 99),
    tpotMeanMs: tpots.length === 0 ? 0 : tpots.reduce((a, b) => a + b, 0) / tpots.length,
    itlP99Ms: pct(itls, 99),
    outputTokPerS: windowS > 0 ? window.completedOutputTokens / windowS : 0,
    sloAttainment,
    worstSlo: slo,
    server: server?.available === true ? server.summary : null,
    ...(server?.available === true ? { clientTtft: clientTtftOf(result.records) } : {}),
    gpu:
      gpus === undefined || gpus.gpus.length === 0
        ? null
        : summarizeGpus(gpus.gpus, result.metrics.totalOutput).total,
    ...(earlyStop === undefined ? {} : { earlyStop }),
    status,
    reason,
    resultFile,
  };
}
