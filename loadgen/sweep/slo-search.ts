// `sweep --slo EXPR`: the highest request rate at which every SLO holds. The load grows (doubling from the
// synchronous probe's rate) until a level breaks an SLO, then the bracket between the last level that held and the
// first that broke is bisected --slo-bisections times; each level is a sweep level (sized to be steady, judged from
// its steady window). A level holds when every SLO holds on its figures (the threshold code, on its result JSON)
// and it kept up with what it was offered: a level that fell behind has no steady state to meet an SLO in.
// The answer is the last level that held, with the bracket (one bisection step wide) and, from the bootstrap of
// its requests and time windows (loadgen/compare/bootstrap.ts), the interval of its achieved rate and of each SLO's
// figure there; and which SLO broke first above it.

import type { BenchRunResult } from '../bench/run-bench.js';
import {
  type Interval,
  percentileInterval,
  rateReplicates,
  requestReplicates,
} from '../compare/bootstrap.js';
import { requestValues, type SampleName, windowSums } from '../compare/request-samples.js';
import type { ThresholdCheck } from '../thresholds/check-thresholds.js';
import type { Threshold } from '../thresholds/threshold.js';
import type { SweepLevel } from './sweep-level.js';

/** Bisections after the bracket is found unless --slo-bisections says otherwise. */
export const DEFAULT_SLO_BISECTIONS = 4;
/** Doublings before giving up on finding a rate that breaks an SLO. */
const MAX_GROWTH_LEVELS = 10;
/** The growth starts at no less than this (req/s), so a slow probe still finds the bracket in a few doublings. */
const MIN_START_RPS = 0.1;
/** Seeds of the bootstrap, fixed so the same level always gives the same interval. */
const RATE_SEED = 0x510;
const REQUEST_SEED = 0x511;

export interface SloTrial {
  readonly rateRps: number;
  readonly phase: 'grow' | 'bisect';
  readonly held: boolean;
  /** Each SLO with the level's value and whether it held. */
  readonly checks: readonly ThresholdCheck[];
  /** The level's keep-up status and reason (fell behind: broke, whatever the SLOs). */
  readonly level: SweepLevel;
}

export interface SloFigureInterval {
  readonly slo: string;
  readonly value: number | null;
  readonly interval: Interval | null;
}

export interface SloCapacity {
  readonly slos: readonly string[];
  /** In the order they ran. */
  readonly trials: readonly SloTrial[];
  /** The highest rate that held; null when even the first broke. */
  readonly capacityRps: number | null;
  /** The lowest rate that broke; null when none did up to the last doubling. */
  readonly brokeAtRps: number | null;
  /** What broke first above the capacity: an SLO's text, or "kept up" when the level fell behind. */
  readonly brokeFirst: string | null;
  readonly achieved: { readonly rps: number; readonly interval: Interval | null } | null;
  readonly figures: readonly SloFigureInterval[];
  readonly sentence: string;
}

/** One level at a rate: its run and how it was judged. */
export type RunSloLevel = (rateRps: number) => Promise<{
  /** The level's steady window as a run: its requests, and the window's length as its duration. */
  result: BenchRunResult;
  /** Where the window starts, ms after the level's t = 0. */
  windowStartMs: number;
  level: SweepLevel;
  checks: ThresholdCheck[];
}>;

const rps = (rate: number): string => `${Number(rate.toFixed(3))} req/s`;

/** The SLO a broken level broke furthest (value over limit, either way round), or "kept up". */
function worstBroken(trial: SloTrial): string {
  if (trial.level.status === 'fell-behind') return `kept up (${trial.level.reason})`;
  let worst: ThresholdCheck | undefined;
  let worstExcess = -Infinity;
  for (const check of trial.checks) {
    if (check.passed) continue;
    const { limit, comparison } = check.threshold;
    const value = check.value ?? Number.NaN;
    const excess = comparison.startsWith('<') ? value / limit : limit / value;
    if (worst === undefined || !(excess <= worstExcess)) {
      worst = check;
      worstExcess = excess;
    }
  }
  if (worst === undefined) return 'nothing';
  return `${worst.threshold.text} (${worst.value === null ? 'no value' : Number(worst.value.toFixed(3))})`;
}

/** The sample and statistic an SLO reads, when it is a per-request figure the bootstrap can resample. */
function resampled(threshold: Threshold): { sample: SampleName; p: number | null } | null {
  const name = threshold.metric.name;
  if (name === 'success_rate') return { sample: 'ok', p: null };
  const match = /^(ttft|tpot|itl|e2el|ttfb)_(mean|p[\d.]+)$/.exec(name);
  if (match === null) return null;
  return {
    sample: match[1] as SampleName,
    p: match[2] === 'mean' ? null : (threshold.metric.percentile ?? null),
  };
}

function figureIntervals(result: BenchRunResult, checks: readonly ThresholdCheck[]): SloFigureInterval[] {
  const records = result.records;
  return checks.map((check) => {
    const spec = resampled(check.threshold);
    if (spec === null || records.length < 10)
      return { slo: check.threshold.text, value: check.value, interval: null };
    const sample = requestValues(records, spec.sample);
    const statistic =
      spec.p === null ? ({ kind: 'mean' } as const) : ({ kind: 'percentile', p: spec.p } as const);
    const [replicates] = requestReplicates(records.length, [{ sample, statistic }], REQUEST_SEED);
    return {
      slo: check.threshold.text,
      value: check.value,
      interval: replicates === undefined ? null : percentileInterval(replicates),
    };
  });
}

function achievedInterval(result: BenchRunResult, windowStartMs: number): Interval | null {
  const durationS = result.durationMs / 1000;
  if (durationS <= 0) return null;
  // On the window's clock, so the bootstrap's time windows tile the steady window.
  const shifted = result.records.map((r) => ({
    ...r,
    sentAtMs: r.sentAtMs === null ? null : r.sentAtMs - windowStartMs,
  }));
  const sums = windowSums(shifted, result.durationMs, 'requests');
  return percentileInterval(rateReplicates(sums, durationS, RATE_SEED));
}

export async function searchSloCapacity(
  slos: readonly Threshold[],
  startRps: number,
  bisections: number,
  runLevel: RunSloLevel,
  stopped: () => boolean,
): Promise<SloCapacity> {
  const trials: SloTrial[] = [];
  const results = new Map<number, { result: BenchRunResult; windowStartMs: number }>();
  const trial = async (rateRps: number, phase: SloTrial['phase']): Promise<SloTrial> => {
    const { result, windowStartMs, level, checks } = await runLevel(rateRps);
    const held = level.status !== 'fell-behind' && checks.every((c) => c.passed);
    const done = { rateRps, phase, held, checks, level };
    trials.push(done);
    results.set(rateRps, { result, windowStartMs });
    return done;
  };
  let held: SloTrial | undefined;
  let broke: SloTrial | undefined;
  let rate = Math.max(startRps, MIN_START_RPS);
  for (let i = 0; i < MAX_GROWTH_LEVELS && !stopped(); i++, rate *= 2) {
    const t = await trial(rate, 'grow');
    if (!t.held) {
      broke = t;
      break;
    }
    held = t;
  }
  for (let i = 0; i < bisections && held !== undefined && broke !== undefined && !stopped(); i++) {
    // Four significant digits: the rate names the level's files.
    const t = await trial(Number(((held.rateRps + broke.rateRps) / 2).toPrecision(4)), 'bisect');
    if (t.held) held = t;
    else broke = t;
  }
  const heldRun = held === undefined ? undefined : results.get(held.rateRps);
  const figures =
    held === undefined || heldRun === undefined ? [] : figureIntervals(heldRun.result, held.checks);
  const achieved =
    held === undefined || heldRun === undefined
      ? null
      : { rps: held.level.achievedRps, interval: achievedInterval(heldRun.result, heldRun.windowStartMs) };
  const brokeFirst = broke === undefined ? null : worstBroken(broke);
  return {
    slos: slos.map((s) => s.text),
    trials,
    capacityRps: held?.rateRps ?? null,
    brokeAtRps: broke?.rateRps ?? null,
    brokeFirst,
    achieved,
    figures,
    sentence: capacitySentence(slos, trials, held, broke, brokeFirst, achieved, figures),
  };
}

function intervalText(interval: Interval | null, digits: number): string {
  return interval === null ? '' : `, 95% CI ${interval.low.toFixed(digits)}-${interval.high.toFixed(digits)}`;
}

function capacitySentence(
  slos: readonly Threshold[],
  trials: readonly SloTrial[],
  held: SloTrial | undefined,
  broke: SloTrial | undefined,
  brokeFirst: string | null,
  achieved: SloCapacity['achieved'],
  figures: readonly SloFigureInterval[],
): string {
  const within = `within ${slos.map((s) => s.text).join(', ')}`;
  const tried = `Levels tried: ${trials.map((t) => `${rps(t.rateRps)} ${t.held ? 'held' : 'broke'}`).join(', ')}.`;
  if (held === undefined) {
    return `No rate held ${within}: at the lowest tried, ${rps(broke?.rateRps ?? 0)}, ${brokeFirst ?? 'nothing'} broke; lower the load or loosen the SLOs. ${tried}`;
  }
  const at = figures
    .map(
      (f) =>
        `${f.slo.split(' ')[0]} ${f.value === null ? 'none' : Number(f.value.toFixed(3))}${intervalText(f.interval, 2)}`,
    )
    .join('; ');
  const heldText =
    `Capacity ${within}: ${rps(held.rateRps)}, the highest rate tried where every SLO held (achieved ` +
    `${achieved?.rps.toFixed(2) ?? '?'} req/s${intervalText(achieved?.interval ?? null, 2)}${at === '' ? '' : `; ${at}`})`;
  if (broke === undefined) {
    return `${heldText}; no rate up to it broke an SLO: the limit is higher (sweep higher rates). ${tried}`;
  }
  return (
    `${heldText}; at ${rps(broke.rateRps)} ${brokeFirst} broke first. The limit lies between them ` +
    `(one bisection step, ${Number((broke.rateRps - held.rateRps).toFixed(3))} req/s). ${tried}`
  );
}
