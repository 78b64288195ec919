// `sweep --slo EXPR`: the highest request rate (or, with --search concurrency, the highest concurrency) at which
// every SLO holds. The load grows (doubling from the synchronous probe's rate, or from one request in flight) until
// a level breaks an SLO, then the bracket between the last level that held and the first that broke is bisected
// --slo-bisections times (over whole numbers for a concurrency, so it stops early once the bracket is 1 wide); the
// search is the same for both, its SearchSpace says where to start and how to halve. Each level is a sweep level
// (sized to be steady, judged from its steady window). A level holds when every SLO holds on its figures (the
// threshold code, on its result JSON) and it kept up with what it was offered: a level that fell behind has no
// steady state to meet an SLO in.
// The answer is the last level that held, with the bracket (one bisection step wide) and, from the bootstrap of
// its requests and time windows (loadgen/compare/bootstrap.ts), the interval of its achieved rate and of each SLO's
// figure there; and which SLO broke first above it.

import type { BenchRunResult } from '../bench/aggregate.js';
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
import { loadText, type SweepParameter } from './sweep-rates.js';

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
  /** The level's request rate (req/s) or concurrency, as the search's parameter says. */
  readonly load: number;
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
  /** What the levels moved: their request rate, or their concurrency at an unbounded rate. */
  readonly parameter: SweepParameter;
  /** In the order they ran. */
  readonly trials: readonly SloTrial[];
  /** The highest load that held; null when even the first broke. */
  readonly capacity: number | null;
  /** The lowest load that broke; null when none did up to the last doubling. */
  readonly brokeAt: number | null;
  /** What broke first above the capacity: an SLO's text, or "kept up" when the level fell behind. */
  readonly brokeFirst: string | null;
  readonly achieved: { readonly rps: number; readonly interval: Interval | null } | null;
  readonly figures: readonly SloFigureInterval[];
  readonly sentence: string;
}

/** Where the search starts and how it halves a bracket: the parameter's own rules. */
export interface SearchSpace {
  readonly parameter: SweepParameter;
  readonly start: number;
  /** A load between the two, or null when none is left to try. */
  midpoint(held: number, broke: number): number | null;
}

/** Request rates: from the rate one user gets (at least MIN_START_RPS), halved to four significant digits. */
export function rateSpace(startRps: number): SearchSpace {
  return {
    parameter: 'rate',
    start: Math.max(startRps, MIN_START_RPS),
    // Four significant digits: the rate names the level's files.
    midpoint: (held, broke) => Number(((held + broke) / 2).toPrecision(4)),
  };
}

/** Concurrencies (or sessions in flight): from `start`, halved over whole numbers. */
export function concurrencySpace(
  start: number,
  parameter: 'concurrency' | 'sessions' = 'concurrency',
): SearchSpace {
  return {
    parameter,
    start,
    midpoint: (held, broke) => (broke - held > 1 ? Math.floor((held + broke) / 2) : null),
  };
}

/** One level at a load (a rate or a concurrency): its run and how it was judged. */
export type RunSloLevel = (load: number) => Promise<{
  /** The level's steady window as a run: its requests, and the window's length as its duration. */
  result: BenchRunResult;
  /** Where the window starts, ms after the level's t = 0. */
  windowStartMs: number;
  level: SweepLevel;
  checks: ThresholdCheck[];
}>;

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
  space: SearchSpace,
  bisections: number,
  runLevel: RunSloLevel,
  stopped: () => boolean,
): Promise<SloCapacity> {
  const trials: SloTrial[] = [];
  const results = new Map<number, { result: BenchRunResult; windowStartMs: number }>();
  const trial = async (load: number, phase: SloTrial['phase']): Promise<SloTrial> => {
    const { result, windowStartMs, level, checks } = await runLevel(load);
    const held = level.status !== 'fell-behind' && checks.every((c) => c.passed);
    const done = { load, phase, held, checks, level };
    trials.push(done);
    results.set(load, { result, windowStartMs });
    return done;
  };
  let held: SloTrial | undefined;
  let broke: SloTrial | undefined;
  let load = space.start;
  for (let i = 0; i < MAX_GROWTH_LEVELS && !stopped(); i++, load *= 2) {
    const t = await trial(load, 'grow');
    if (!t.held) {
      broke = t;
      break;
    }
    held = t;
  }
  for (let i = 0; i < bisections && held !== undefined && broke !== undefined && !stopped(); i++) {
    const between = space.midpoint(held.load, broke.load);
    if (between === null) break;
    const t = await trial(between, 'bisect');
    if (t.held) held = t;
    else broke = t;
  }
  const heldRun = held === undefined ? undefined : results.get(held.load);
  const figures =
    held === undefined || heldRun === undefined ? [] : figureIntervals(heldRun.result, held.checks);
  const achieved =
    held === undefined || heldRun === undefined
      ? null
      : { rps: held.level.achievedRps, interval: achievedInterval(heldRun.result, heldRun.windowStartMs) };
  const brokeFirst = broke === undefined ? null : worstBroken(broke);
  return {
    slos: slos.map((s) => s.text),
    parameter: space.parameter,
    trials,
    capacity: held?.load ?? null,
    brokeAt: broke?.load ?? null,
    brokeFirst,
    achieved,
    figures,
    sentence: capacitySentence(space.parameter, slos, trials, held, broke, brokeFirst, achieved, figures),
  };
}

function intervalText(interval: Interval | null, digits: number): string {
  return interval === null ? '' : `, 95% CI ${interval.low.toFixed(digits)}-${interval.high.toFixed(digits)}`;
}

function capacitySentence(
  parameter: SweepParameter,
  slos: readonly Threshold[],
  trials: readonly SloTrial[],
  held: SloTrial | undefined,
  broke: SloTrial | undefined,
  brokeFirst: string | null,
  achieved: SloCapacity['achieved'],
  figures: readonly SloFigureInterval[],
): string {
  const named = (load: number): string => loadText(parameter, load);
  const within = `within ${slos.map((s) => s.text).join(', ')}`;
  const tried = `Levels tried: ${trials.map((t) => `${named(t.load)} ${t.held ? 'held' : 'broke'}`).join(', ')}.`;
  if (held === undefined) {
    // The search starts at the least load that means anything (one request in flight, or the rate one request at
    // a time achieves): a lower one does not make a lone request faster, so only a level that fell behind
    // there points at less load.
    const fellBehind = broke?.level.status === 'fell-behind';
    const least =
      parameter === 'concurrency'
        ? 'one request in flight'
        : parameter === 'sessions'
          ? 'one session at a time'
          : "one user's rate, from the synchronous probe";
    const advice = fellBehind
      ? 'the server did not keep up even there'
      : 'a lower load does not make a lone request faster: loosen the SLOs or make the server faster';
    return `No ${parameter} held ${within}: at the lowest tried, ${named(broke?.load ?? 0)} (${least}), ${brokeFirst ?? 'nothing'} broke; ${advice}. ${tried}`;
  }
  const at = figures
    .map(
      (f) =>
        `${f.slo.split(' ')[0]} ${f.value === null ? 'none' : Number(f.value.toFixed(3))}${intervalText(f.interval, 2)}`,
    )
    .join('; ');
  const measured = `achieved ${achieved?.rps.toFixed(2) ?? '?'} req/s${intervalText(achieved?.interval ?? null, 2)}${at === '' ? '' : `; ${at}`}`;
  const heldText =
    parameter === 'sessions'
      ? `This server holds ${held.load} concurrent session${held.load === 1 ? '' : 's'} of this trace ${within} (${measured})`
      : `Capacity ${within}: ${named(held.load)}, the highest ${parameter} tried where every SLO held (${measured})`;
  if (broke === undefined) {
    return `${heldText}; no ${parameter} up to it broke an SLO: the limit is higher (sweep higher). ${tried}`;
  }
  const step = Number((broke.load - held.load).toFixed(3));
  const seats = parameter === 'sessions' ? ' sessions' : '';
  const bracket =
    parameter !== 'rate' && step === 1
      ? `The limit is exactly there: one more${parameter === 'sessions' ? ' session' : ''} in flight broke it`
      : `The limit lies between them (one bisection step, ${parameter === 'rate' ? named(step) : `${step}${seats} in flight`})`;
  return `${heldText}; at ${named(broke.load)} ${brokeFirst} broke first. ${bracket}. ${tried}`;
}
