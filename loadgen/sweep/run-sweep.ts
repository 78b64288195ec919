// A sweep: probes (to size the levels and, with --rates auto, to place them), then the bench at each rate for
// long enough to be steady, every level's result JSON and records, the knee, then sweep-summary.json (and its
// HTML page) beside them. A level that --stop-on-saturation or --max-error-rate cut short fell behind, and is the
// sweep's answer: no level after it runs (the SLO search treats it as any level that broke, and goes on below
// it). The probes are not watched: the throughput probe overloads the server on purpose. Nothing is printed
// here: progress lines go to the caller's `say`, the table comes back as text. Split in two so that the caller
// prints the table before the summary is written, as for a single run.
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { withSessionCount } from '../bench/agent-run.js';
import type { BenchRunResult } from '../bench/aggregate.js';
import { runChecks } from '../bench/aggregate.js';
import type { LoadedDataset } from '../bench/load-dataset.js';
import type { PreparedRun, Say } from '../bench/prepare-run.js';
import type { ProgressStream } from '../bench/progress.js';
import { runBench } from '../bench/run-bench.js';
import { describeRun, saveHtmlReport, saveResult, timelinePathFor } from '../bench/save-result.js';
import type { BenchSettings } from '../bench/settings.js';
import type { EarlyStop } from '../early-stop/early-stop.js';
import { earlyStopFeature } from '../early-stop/early-stop-feature.js';
import { ruleFlag } from '../early-stop/early-stop-settings.js';
import { partOf } from '../feature.js';
import { median } from '../metrics/numpy-stats.js';
import { writeHtmlReport } from '../report/html/write-html-report.js';
import { formatResultDate, type RunDescription, resultFileName } from '../report/result-json.js';
import { sweepFromSummary } from '../report/sweep-data.js';
import type { Threshold } from '../thresholds/threshold.js';
import { findKnee, type Knee, kneeCause } from './knee.js';
import {
  concurrencySpace,
  DEFAULT_SLO_BISECTIONS,
  rateSpace,
  type SloCapacity,
  searchSloCapacity,
} from './slo-search.js';
import { steadyWindow } from './steady-window.js';
import { type SweepLevel, sweepLevel } from './sweep-level.js';
import {
  levelRequests,
  levelSecondsFromLatency,
  loadText,
  ratesFromProbes,
  type SweepParameter,
  SYNC_PROBE_REQUESTS,
} from './sweep-rates.js';
import {
  type SweepProbes,
  type SweepStop,
  type SynchronousProbe,
  sweepSummaryJson,
  type ThroughputProbe,
} from './sweep-summary.js';
import { formatSweepTable } from './sweep-table.js';

/** A sessions level runs this many sessions per session in flight, so each seat runs several one after another. */
const SESSIONS_PER_SEAT = 3;

export interface SweepInput {
  readonly settings: BenchSettings;
  /** The rates to run, or undefined: probe first, then `steps` levels up to 125% of saturation. */
  readonly rates: readonly number[] | undefined;
  readonly steps: number;
  /** --level-seconds, or undefined: LEVEL_LATENCIES x the synchronous probe's median latency. */
  readonly levelSeconds: number | undefined;
  readonly prepared: PreparedRun;
  /** Aborted (Ctrl-C): the level in flight stops, no further level starts, and what ran is summarized. */
  readonly signal: AbortSignal;
  readonly say: Say;
  readonly progressStream: ProgressStream;
  /** --concurrencies: run these concurrencies (each at rate inf, at most N in flight) instead of rates. */
  readonly concurrencies?: readonly number[];
  /** --slo: search for the highest rate (or concurrency) at which every one holds, instead of running `rates`. */
  readonly slos?: readonly Threshold[];
  readonly sloBisections?: number;
  /** --search: what the SLO search moves; the rate unless told. */
  readonly search?: SweepParameter;
}

export interface SweepOutcome {
  /** Where every level's files and the summary go. */
  readonly dir: string;
  readonly started: Date;
  readonly probes: SweepProbes;
  readonly levelSeconds: number;
  readonly levels: readonly SweepLevel[];
  readonly knee: Knee;
  /** --slo: the capacity found, its interval and the levels tried. */
  readonly capacity?: SloCapacity;
  /** A level of a --rates or --concurrencies sweep stopped early, so the sweep stopped there (exit 4). */
  readonly stoppedEarly?: SweepStop;
  readonly interrupted: boolean;
  /** What goes to stdout: one table row per level and the knee in a sentence. */
  readonly report: string;
}

/** The dataset repeated to `count` requests: a level longer than the dataset cycles through it. */
function cycled(dataset: LoadedDataset, count: number): LoadedDataset {
  if (count <= dataset.requests.length) return { ...dataset, requests: dataset.requests.slice(0, count) };
  const requests = Array.from({ length: count }, (_, i) => dataset.requests[i % dataset.requests.length]);
  return { ...dataset, requests: requests.filter((r) => r !== undefined) };
}

async function run(
  input: SweepInput,
  dir: string,
  changes: Partial<BenchSettings>,
  count: number,
  /** Whether --stop-on-saturation and --max-error-rate watch it: a level, not a probe. */
  watched: boolean,
): Promise<{ result: BenchRunResult; file: string; description: RunDescription }> {
  const p = input.prepared;
  const { earlyStop, ...rest } = { ...input.settings, ...changes };
  const settings: BenchSettings = watched && earlyStop !== undefined ? { ...rest, earlyStop } : rest;
  // An agentic trace's level is counted in sessions; any other in requests.
  const dataset =
    p.dataset.agentSessions === undefined ? cycled(p.dataset, count) : withSessionCount(p.dataset, count);
  const description = describeRun(settings, p.modelId, p.tokenizer.name, new Date(), dataset.requests.length);
  const path = join(dir, resultFileName(description));
  const result = await runBench({
    settings,
    model: p.sentModel,
    recordsPath: path.replace(/\.json$/, '.records.jsonl'),
    signal: input.signal,
    progressStream: input.progressStream,
    tokenizer: p.tokenizer,
    dataset,
  });
  saveResult(
    path,
    description,
    result,
    settings.save.detailed,
    [],
    false,
    settings.timeline?.itlThresholdsMs,
  );
  // vLLM's --plot-timeline, per level: its report beside its result file.
  if (settings.timeline?.plot === true) {
    await saveHtmlReport(timelinePathFor(path), description, result, settings.timeline.itlThresholdsMs);
  }
  return { result, file: path, description };
}

/** Completions per second while busy: (completed - 1) / time from the first completion to the last. */
function busyRate(result: BenchRunResult): number {
  const ends = result.records
    .filter((r) => r.outcome === 'ok' && r.sentAtMs !== null && r.lastTokenMs !== null)
    .map((r) => (r.sentAtMs as number) + (r.lastTokenMs as number))
    .sort((a, b) => a - b);
  const span = (ends[ends.length - 1] ?? 0) - (ends[0] ?? 0);
  return ends.length < 2 || span <= 0 ? 0 : ((ends.length - 1) / span) * 1000;
}

async function synchronousProbe(input: SweepInput, dir: string): Promise<SynchronousProbe> {
  const { result, file } = await run(
    input,
    dir,
    // One at a time from each shard: a cap is the whole run's and split across the shards (shard-spec.ts), so a
    // sharded probe's cap is the number of shards, never the 1 a single process uses.
    { requestRate: Number.POSITIVE_INFINITY, maxConcurrency: input.settings.shard?.count ?? 1 },
    SYNC_PROBE_REQUESTS,
    false,
  );
  const latencies = result.records
    .filter((r) => r.outcome === 'ok' && r.lastTokenMs !== null)
    .map((r) => r.lastTokenMs as number);
  const probe = {
    requests: result.records.length,
    medianLatencyMs: latencies.length === 0 ? 0 : median(latencies),
    rps: result.durationMs > 0 ? (latencies.length / result.durationMs) * 1000 : 0,
    resultFile: basename(file),
  };
  input.say(
    `synchronous probe: ${probe.requests} requests one at a time, median latency ${probe.medianLatencyMs.toFixed(1)} ms, ${probe.rps.toFixed(2)} req/s -> ${file}`,
  );
  return probe;
}

async function throughputProbe(input: SweepInput, dir: string): Promise<ThroughputProbe> {
  const count = input.prepared.dataset.requests.length;
  const { result, file } = await run(input, dir, { requestRate: Number.POSITIVE_INFINITY }, count, false);
  const probe = { requests: result.records.length, rps: busyRate(result), resultFile: basename(file) };
  input.say(
    `throughput probe: ${probe.requests} requests at once, ${probe.rps.toFixed(2)} req/s completed -> ${file}`,
  );
  return probe;
}

/** The level that stopped early ends the sweep: what fired, and what did not run. */
function sweepStop(
  parameter: SweepParameter,
  load: number,
  earlyStop: EarlyStop,
  skipped: readonly number[],
): SweepStop {
  const name = (n: number): string => (parameter === 'rate' ? `${n.toFixed(2)} req/s` : `concurrency ${n}`);
  const after =
    skipped.length === 0
      ? ' (it was the last level)'
      : ` and ${skipped.length === 1 ? 'the level' : 'the levels'} after it (${skipped.map(name).join(', ')}) did not run`;
  return {
    parameter,
    load,
    earlyStop,
    skipped,
    sentence:
      `The sweep stopped at ${name(load)}: ${ruleFlag(earlyStop.reason)} cut that level short at ` +
      `${earlyStop.atS.toFixed(1)} s, so it fell behind${after}.`,
  };
}

/**
 * What the levels will cost, said before the first one starts: each level's requests and about how long it runs
 * (its requests over its rate, plus one request's time alone for the last ones in flight), and the sum. A level
 * past the knee runs longer, since the server falls behind: the figures are the least it takes.
 */
function sweepPlan(
  loads: readonly number[],
  parameter: SweepParameter,
  levelSeconds: number,
  minRequests: number,
  seatRps: (n: number) => number,
  probes: SweepProbes,
): string[] {
  const tailS = (probes.synchronous?.medianLatencyMs ?? 0) / 1000;
  let requests = 0;
  let seconds = 0;
  const lines = loads.map((load) => {
    const rps = parameter === 'concurrency' ? seatRps(load) : load;
    const count = levelRequests(rps, levelSeconds, minRequests);
    const levelS = count / rps + tailS;
    requests += count;
    seconds += levelS;
    return `plan: ${loadText(parameter, load)}: ${count} requests, about ${clockText(levelS)}`;
  });
  if (loads.length > 1)
    lines.push(
      `plan: ${loads.length} levels, ${requests} requests, about ${clockText(seconds)} in all ` +
        '(more where the server falls behind)',
    );
  return lines;
}

/** "45 s", "3 min 05 s". */
function clockText(seconds: number): string {
  const whole = Math.ceil(seconds);
  if (whole < 60) return `${whole} s`;
  return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, '0')} s`;
}

export async function runSweep(input: SweepInput): Promise<SweepOutcome> {
  const { settings, signal, say } = input;
  const started = new Date();
  const dir =
    settings.save.dir === '.'
      ? join('.', `tokenmeter-sweep-${formatResultDate(started)}`)
      : settings.save.dir;
  say(`sweep results: ${dir}`);
  const probes: SweepProbes = {};
  const parameter: SweepParameter =
    input.search === 'sessions'
      ? 'sessions'
      : input.concurrencies !== undefined || input.search === 'concurrency'
        ? 'concurrency'
        : 'rate';
  // The SLO search starts from the rate one user gets, and a concurrency level's length in requests comes from
  // the rate its seats would give at the latency of one request alone.
  const needsLatency =
    input.levelSeconds === undefined || input.slos !== undefined || parameter === 'concurrency';
  // A sessions level is sized in sessions (SESSIONS_PER_SEAT each), not by one request's latency.
  if (parameter !== 'sessions' && (needsLatency || input.rates === undefined))
    probes.synchronous = await synchronousProbe(input, dir);
  const levelSeconds =
    input.levelSeconds ?? levelSecondsFromLatency(probes.synchronous?.medianLatencyMs ?? 0);
  let rates = input.rates;
  if (rates === undefined && input.slos === undefined && parameter === 'rate' && !signal.aborted) {
    probes.throughput = await throughputProbe(input, dir);
    rates = ratesFromProbes(probes.synchronous?.rps ?? 0, probes.throughput.rps, input.steps);
    say(`levels: ${rates.join(', ')} req/s`);
  }
  const minRequests = input.prepared.dataset.requests.length;
  say(
    parameter === 'sessions'
      ? `each level runs ${SESSIONS_PER_SEAT} sessions per session in flight`
      : `each level runs at least ${levelSeconds.toFixed(1)} s and ${minRequests} requests`,
  );
  const levels: SweepLevel[] = [];
  // Seats over the time one request takes alone: what N in flight complete at most while nothing queues, so a
  // concurrency level is never shorter than --level-seconds below the knee (above it, it runs longer).
  const seatRps = (n: number): number => (n * 1000) / Math.max(probes.synchronous?.medianLatencyMs ?? 0, 1);
  const runLevel = async (load: number) => {
    const sessions = parameter === 'sessions';
    const concurrency = parameter === 'rate' ? undefined : load;
    const count = sessions
      ? SESSIONS_PER_SEAT * load
      : levelRequests(concurrency === undefined ? load : seatRps(load), levelSeconds, minRequests);
    // Each level's requests get ids of their own (x-request-id), so a server's or gateway's records of two levels
    // never share one.
    const requestIdPrefix = `${settings.requestIdPrefix}L${levels.length}-`;
    const { result, file, description } = await run(
      input,
      dir,
      sessions
        ? { agent: { ...input.settings.agent, concurrentSessions: load }, requestIdPrefix }
        : concurrency === undefined
          ? { requestRate: load, requestIdPrefix }
          : { requestRate: Number.POSITIVE_INFINITY, maxConcurrency: concurrency, requestIdPrefix },
      count,
      true,
    );
    const rate = concurrency === undefined ? load : Number.POSITIVE_INFINITY;
    const level = sweepLevel(rate, result, basename(file), settings.goodput, concurrency);
    levels.push(level);
    const stop = partOf(result.parts, earlyStopFeature);
    say(
      stop === undefined
        ? `${parameter} ${load}: ${sessions ? `${count} sessions, ${result.records.length}` : count} requests, ${level.achievedRps.toFixed(2)} req/s achieved in the steady window, ${level.status} -> ${file}`
        : `${parameter} ${load}: stopped early at ${stop.atS.toFixed(1)} s by ${ruleFlag(stop.reason)} (${result.records.length} of ${count} requests sent): ${stop.message}; ${level.status} -> ${file}`,
    );
    return { result, level, description };
  };
  if (input.slos === undefined || input.slos.length === 0) {
    const loads = (parameter === 'concurrency' ? input.concurrencies : rates) ?? [];
    for (const line of sweepPlan(loads, parameter, levelSeconds, minRequests, seatRps, probes)) say(line);
  }
  let capacity: SloCapacity | undefined;
  let stoppedEarly: SweepStop | undefined;
  if (input.slos !== undefined && input.slos.length > 0) {
    const slos = input.slos;
    say(`searching for the highest ${parameter} within ${slos.map((t) => t.text).join(', ')}`);
    capacity = await searchSloCapacity(
      slos,
      parameter !== 'rate'
        ? concurrencySpace(1, parameter)
        : // A round start, so the levels' rates read well (9.07 -> 9.1).
          rateSpace(Number((probes.synchronous?.rps ?? 1).toPrecision(2))),
      input.sloBisections ?? DEFAULT_SLO_BISECTIONS,
      async (load) => {
        const { result, level, description } = await runLevel(load);
        // The SLOs are held against the level's steady window, as its other figures are: not its warm-up.
        const window = steadyWindow(result.records, parameter === 'rate' ? 'schedule' : 'sends');
        const steady = { ...result, records: window.requests, durationMs: window.endMs - window.startMs };
        const checks = runChecks(steady, { ...settings, thresholds: slos, successFloor: false }, description);
        return { result: steady, windowStartMs: window.startMs, level, checks };
      },
      () => signal.aborted,
    );
  } else {
    const loads = (parameter === 'concurrency' ? input.concurrencies : rates) ?? [];
    for (const [i, load] of loads.entries()) {
      if (signal.aborted) break;
      const { result } = await runLevel(load);
      const earlyStop = partOf(result.parts, earlyStopFeature);
      if (earlyStop === undefined) continue;
      stoppedEarly = sweepStop(parameter, load, earlyStop, loads.slice(i + 1));
      say(stoppedEarly.sentence);
      break;
    }
  }
  const knee = findKnee(levels);
  const cause = kneeCause(knee);
  return {
    dir,
    started,
    probes,
    levelSeconds,
    levels,
    knee,
    ...(capacity === undefined ? {} : { capacity }),
    ...(stoppedEarly === undefined ? {} : { stoppedEarly }),
    interrupted: signal.aborted,
    report:
      `${formatSweepTable(levels)}\n${knee.sentence}\n${cause === null ? '' : `${cause.sentence}\n`}` +
      (capacity === undefined ? '' : `${capacity.sentence}\n`) +
      (stoppedEarly === undefined ? '' : `${stoppedEarly.sentence}\n`),
  };
}

/** sweep-summary.json in the sweep's folder, then --html FILE (undefined = no page). */
export async function saveSweep(
  outcome: SweepOutcome,
  settings: BenchSettings,
  prepared: PreparedRun,
  htmlPath: string | undefined,
  say: Say,
): Promise<void> {
  const summary = sweepSummaryJson(
    {
      date: formatResultDate(outcome.started),
      target: settings.target.url,
      modelId: prepared.modelId,
      engine: settings.engine,
      promptsPerLevel: prepared.dataset.requests.length,
      levelSeconds: outcome.levelSeconds,
      maxConcurrency: settings.maxConcurrency ?? null,
      goodput: settings.goodput ?? null,
      interrupted: outcome.interrupted,
    },
    outcome.probes,
    outcome.levels,
    outcome.knee,
    outcome.capacity,
    outcome.stoppedEarly,
  );
  const summaryPath = join(outcome.dir, 'sweep-summary.json');
  writeFileSync(summaryPath, `${JSON.stringify(summary, null, 2)}\n`);
  say(`summary: ${summaryPath}`);
  if (htmlPath !== undefined) {
    // The report reads the summary exactly as `tokenmeter report sweep-summary.json` would.
    await writeHtmlReport(
      'sweep',
      sweepFromSummary(summaryPath, JSON.parse(JSON.stringify(summary))),
      htmlPath,
    );
    say(`report: ${htmlPath}`);
  }
}
