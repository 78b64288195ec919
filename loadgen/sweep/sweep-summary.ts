// sweep-summary.json: the sweep's probes, levels and knee in snake_case, the names vLLM's result files use, so
// that `tokenmeter report sweep-summary.json` (and anyone's script) reads the same figures the table printed.
import type { EarlyStop } from '../early-stop/early-stop.js';
import { earlyStopJson } from '../early-stop/early-stop-feature.js';
import { type Knee, kneeCause } from './knee.js';
import type { SloCapacity } from './slo-search.js';
import type { SweepLevel } from './sweep-level.js';
import type { SweepParameter } from './sweep-rates.js';

// What the sweep found besides its levels, summarised here and returned by run-sweep.ts.

/** One request at a time: the median end-to-end latency and the completed rate. */
export interface SynchronousProbe {
  requests: number;
  medianLatencyMs: number;
  rps: number;
  resultFile: string;
}

/** Every request at once (within --max-concurrency): the completion rate while busy. */
export interface ThroughputProbe {
  requests: number;
  rps: number;
  resultFile: string;
}

/** What the probes found (a probe that did not run is absent). */
export interface SweepProbes {
  synchronous?: SynchronousProbe;
  throughput?: ThroughputProbe;
}

/** A level cut short by --stop-on-saturation or --max-error-rate, and the levels that did not run after it. */
export interface SweepStop {
  readonly parameter: SweepParameter;
  /** The level's rate or concurrency. */
  readonly load: number;
  readonly earlyStop: EarlyStop;
  /** The loads listed after it, not run. */
  readonly skipped: readonly number[];
  /** "The sweep stopped at 100.00 req/s: ..." */
  readonly sentence: string;
}

export interface SweepSummaryContext {
  readonly date: string;
  readonly target: string;
  readonly modelId: string;
  readonly engine: string;
  readonly promptsPerLevel: number;
  readonly levelSeconds: number;
  readonly maxConcurrency: number | null;
  readonly goodput: unknown;
  readonly interrupted: boolean;
}

/** JSON has no Infinity: an unbounded rate is written as vLLM writes it, "inf". */
const rate = (value: number): number | 'inf' => (Number.isFinite(value) ? value : 'inf');

function levelJson(level: SweepLevel) {
  return {
    offered_rate: rate(level.offeredRps),
    // A concurrency level's load (vLLM's result key for the cap); null for a rate level.
    max_concurrency: level.concurrency ?? null,
    requests: level.requests,
    success_rate: level.successRate,
    sent_rate: rate(level.sent.rps),
    achieved_rate: rate(level.achievedRps),
    ttft_p50_ms: level.ttftP50Ms,
    ttft_p99_ms: level.ttftP99Ms,
    mean_tpot_ms: level.tpotMeanMs,
    itl_p99_ms: level.itlP99Ms,
    output_throughput: level.outputTokPerS,
    slo_attainment: level.sloAttainment,
    // vLLM's energy keys (loadgen/gpu-metrics/gpu-metrics-json.ts) over the whole level; null without GPU figures.
    gpu_energy_j: level.gpu?.energyJ ?? null,
    gpu_avg_power_w: level.gpu?.meanPowerW ?? null,
    gpu_energy_per_output_token_j: level.gpu?.energyPerOutputTokenJ ?? null,
    gpu_mean_util_pct: level.gpu?.meanUtilPct ?? null,
    result_file: level.resultFile,
    // The steady window the figures above come from, and what was left out of it.
    steady_requests: level.steadyRequests,
    steady_cancelled: level.steadyCancelled,
    warmup_requests: level.warmupRequests,
    drain_s: level.drainS,
    drain_completions: level.drainCompletions,
    window_offered_rate: level.offered.rps,
    window_offered_rate_min: level.offered.minRps,
    window_offered_rate_max: level.offered.maxRps,
    achieved_rate_min: level.achieved.minRps,
    achieved_rate_max: level.achieved.maxRps,
    follow_ratio: level.followRatio,
    follow_spread: level.followSpread,
    worst_slo: level.worstSlo,
    // The server's own metrics over the level (docs/loadgen.md, "Server metrics"); null without them.
    server:
      level.server == null
        ? null
        : {
            peak_kv_cache_usage: level.server.peakKvUsage,
            preemptions: level.server.preemptions,
            max_requests_running: level.server.maxRunning,
            max_requests_waiting: level.server.maxWaiting,
            server_ttft_p50_ms: level.server.serverTtft?.p50Ms ?? null,
            server_ttft_p99_ms: level.server.serverTtft?.p99Ms ?? null,
          },
    status: level.status,
    reason: level.reason,
    // Why --stop-on-saturation or --max-error-rate cut the level short (a bench result's tokenmeter.early_stop).
    early_stop: level.earlyStop === undefined ? null : earlyStopJson(level.earlyStop),
  };
}

/** The level that stopped the sweep and the levels that did not run after it, in the sweep's unit. */
function stoppedEarlyJson(stop: SweepStop) {
  return {
    swept: stop.parameter,
    [stop.parameter === 'rate' ? 'offered_rate' : 'max_concurrency']: stop.load,
    reason: stop.earlyStop.reason,
    at_s: Number(stop.earlyStop.atS.toFixed(3)),
    skipped: stop.skipped,
    sentence: stop.sentence,
  };
}

/**
 * --slo: the capacity, its bracket and intervals, and every level tried with each SLO's value there. The load's
 * keys name its unit: capacity_rps and a trial's rate, capacity_concurrency and a trial's concurrency, or
 * capacity_sessions and a trial's sessions in flight.
 */
function sloCapacityJson(capacity: SloCapacity) {
  const interval = (i: { low: number; high: number } | null) =>
    i === null ? null : { low: i.low, high: i.high };
  const unit = capacity.parameter === 'rate' ? 'rps' : capacity.parameter;
  return {
    slos: capacity.slos,
    searched: capacity.parameter,
    [`capacity_${unit}`]: capacity.capacity,
    [`broke_at_${unit}`]: capacity.brokeAt,
    broke_first: capacity.brokeFirst,
    achieved_rps: capacity.achieved?.rps ?? null,
    achieved_rps_interval: interval(capacity.achieved?.interval ?? null),
    figures: capacity.figures.map((f) => ({ slo: f.slo, value: f.value, interval: interval(f.interval) })),
    trials: capacity.trials.map((t) => ({
      [capacity.parameter]: t.load,
      phase: t.phase,
      held: t.held,
      status: t.level.status,
      checks: t.checks.map((c) => ({ slo: c.threshold.text, value: c.value, passed: c.passed })),
      result_file: t.level.resultFile,
    })),
    sentence: capacity.sentence,
  };
}

export function sweepSummaryJson(
  context: SweepSummaryContext,
  probes: SweepProbes,
  levels: readonly SweepLevel[],
  knee: Knee,
  capacity?: SloCapacity,
  stoppedEarly?: SweepStop,
) {
  const lastGood = knee.lastGood?.offeredRps ?? null;
  const firstBad = knee.firstBad?.offeredRps ?? null;
  const marked = knee.finding === 'knee' ? lastGood : knee.finding === 'past-knee' ? firstBad : null;
  const markedLevel =
    knee.finding === 'knee' ? knee.lastGood : knee.finding === 'past-knee' ? knee.firstBad : undefined;
  return {
    date: context.date,
    base_url: context.target,
    model_id: context.modelId,
    engine: context.engine,
    num_prompts_per_level: context.promptsPerLevel,
    level_seconds: context.levelSeconds,
    max_concurrency: context.maxConcurrency,
    // What the levels moved: their request rate, their concurrency at an unbounded rate, or (an SLO search over
    // an agentic trace) the sessions in flight.
    swept:
      capacity?.parameter === 'sessions'
        ? 'sessions'
        : levels.some((l) => l.concurrency !== undefined)
          ? 'concurrency'
          : 'rate',
    goodput: context.goodput,
    probes,
    levels: levels.map(levelJson),
    knee: {
      finding: knee.finding,
      sentence: knee.sentence,
      // The rate the report marks: the last level that kept up (the capacity to plan for), or the lowest level
      // when it was already past the knee; null when the sentence names no knee (none found, or not enough data).
      offered_rate: marked,
      last_good_rps: knee.finding === 'knee' || knee.finding === 'no-knee' ? lastGood : null,
      first_bad_rps: firstBad,
      // A concurrency sweep's knee by its levels' concurrency (their rates are all inf).
      max_concurrency: markedLevel?.concurrency ?? null,
      first_bad_max_concurrency: knee.firstBad?.concurrency ?? null,
      // What the server's metrics say bounded it at the first level that fell behind; null without them.
      cause: kneeCause(knee),
    },
    ...(capacity === undefined ? {} : { slo_capacity: sloCapacityJson(capacity) }),
    // A --rates or --concurrencies sweep whose level was cut short stopped there; null when none was.
    stopped_early: stoppedEarly === undefined ? null : stoppedEarlyJson(stoppedEarly),
    interrupted: context.interrupted,
  };
}
