// `compare`'s arithmetic, kept apart from its display: each row's values (the result files' own figures), each
// run's delta from the first run (the baseline: "before", or "local vLLM"), the bootstrap interval of every value
// and delta drawn from the runs' per-request records, and which run is best: named only when the interval of its
// difference from each other run excludes zero, the very interval the table's CI column shows, so the best column
// never contradicts it. Each row is its own test at the stated confidence. Runs without records still compare,
// on their figures alone, and such a row names no winner: a figure that was not tested is never a win. The
// result is plain data, printed as a table, as --json, or drawn in the HTML report.

import { basename } from 'node:path';
import { interruptionNote } from '../bench/interruption.js';
import {
  type FailedSource,
  failedCount,
  numberField,
  rateField,
  stringField,
} from '../report/result-fields.js';
import { type RunTarget, readTarget } from '../report/run-target.js';
import { differenceInterval, type Interval } from './bootstrap.js';
import { type BetterWhen, compareRowSpecs } from './compare-rows.js';
import { comparisonNotes } from './comparison-notes.js';
import type { LoadedRun } from './run-records.js';
import { runSpreads, type Spread } from './run-spreads.js';

export type DeltaVerdict = 'better' | 'worse' | 'same';

export interface Delta {
  /** Run minus baseline, in the row's unit. */
  absolute: number;
  /** Change relative to the baseline in percent; null when the baseline is 0. */
  percent: number | null;
  /** The direction of the change; null for rows with no better side (duration). */
  verdict: DeltaVerdict | null;
  /** Interval of run minus baseline from both runs' records; null when either has none (see `noInterval`). */
  interval: Interval | null;
  /** The interval of the difference excludes zero; null when there is no interval. */
  significant: boolean | null;
  /** Why there is no interval ("records missing", "p99 needs 1000 values"); null when there is one. */
  noInterval: string | null;
}

export interface ComparedRun {
  /** A, B, C... as the table's columns are headed. */
  letter: string;
  /** The run's --label, else the file name without .json. */
  name: string;
  path: string;
  model: string | null;
  backend: string | null;
  date: string | null;
  /** Offered rate (req/s); null for "inf" (all at once), as JSON cannot hold Infinity. */
  requestRate: number | null;
  maxConcurrency: number | null;
  numPrompts: number | null;
  /** What was measured from where; null for files written before it was saved, and vLLM's. */
  target: RunTarget | null;
  /** Where the records came from ("records file x.records.jsonl", "detailed arrays"); null when missing. */
  recordsSource: string | null;
  /** How many records; 0 when missing. */
  recordCount: number;
  /** Why there are no records; null when there are. */
  recordsMissing: string | null;
  /** A run cut short by Ctrl-C, in words (`tokenmeter.interrupted`); null for a run that ran to its end. */
  interrupted: string | null;
  /** How its failed count was had (derived for vLLM 0.8.5 files, which save none). */
  failedSource: FailedSource;
}

/** How a row's best run was decided. */
export type Decision =
  /** Every run with the figure has an interval: winners are named only beyond the noise. */
  | 'tested'
  /** Some run has no interval: no run is named, whatever the values. */
  | 'untested'
  /** No better side, or fewer than two runs have the figure. */
  | null;

export interface ComparisonRow {
  key: string;
  label: string;
  unit: string;
  better: BetterWhen;
  integer: boolean;
  /** One per run, null where that run's file lacks the figure. */
  values: Array<number | null>;
  /** One per run: each run's own interval, null where it has none. */
  intervals: Array<Interval | null>;
  /** One per run: null for the baseline and where either value is missing. */
  deltas: Array<Delta | null>;
  decision: Decision;
  /**
   * Tested: the runs no other run beats significantly, best value first (all of them: no significant
   * difference; one: a clear winner). Empty when untested or when there is no decision.
   */
  leaders: number[];
  /** The single best run (the only leader); null otherwise. */
  best: number | null;
}

export interface Comparison {
  runs: ComparedRun[];
  rows: ComparisonRow[];
  /** Sentences about what makes the runs hard to compare (different targets or settings, low success). */
  notes: string[];
}

function letter(index: number): string {
  return index < 26 ? String.fromCharCode(65 + index) : `R${index + 1}`;
}

function describeRun(run: LoadedRun, index: number): ComparedRun {
  const { json, path, records } = run;
  const rate = rateField(json, 'request_rate');
  return {
    letter: letter(index),
    name: stringField(json, 'label') ?? basename(path).replace(/\.json$/i, ''),
    path,
    model: stringField(json, 'model_id'),
    backend: stringField(json, 'backend'),
    date: stringField(json, 'date'),
    requestRate: rate === null || !Number.isFinite(rate) ? null : rate,
    maxConcurrency: numberField(json, 'max_concurrency'),
    numPrompts: numberField(json, 'num_prompts'),
    target: readTarget(json),
    recordsSource: records.records === null ? null : records.source,
    recordCount: records.records?.length ?? 0,
    recordsMissing: records.records === null ? records.missing : null,
    interrupted: interruptionNote(json),
    failedSource: failedCount(json).source,
  };
}

/** The interval of a difference lies wholly on one side of zero. */
function excludesZero(interval: Interval): boolean {
  return interval.low > 0 || interval.high < 0;
}

function delta(
  value: number | null,
  base: number | null,
  better: BetterWhen,
  spread: Spread | null,
  baseSpread: Spread | null,
): Delta | null {
  if (value === null || base === null) return null;
  const absolute = value - base;
  const percent = base === 0 ? null : (absolute / Math.abs(base)) * 100;
  let verdict: DeltaVerdict | null = null;
  if (better !== null) {
    if (absolute === 0) verdict = 'same';
    else verdict = absolute < 0 === (better === 'lower') ? 'better' : 'worse';
  }
  const interval =
    spread?.replicates && baseSpread?.replicates
      ? differenceInterval(baseSpread.replicates, spread.replicates)
      : null;
  const missing = [baseSpread, spread].find((s) => s !== null && s.replicates === null);
  return {
    absolute,
    percent,
    verdict,
    interval,
    significant: interval === null ? null : excludesZero(interval),
    noInterval: missing?.replicates === null ? missing.noInterval : null,
  };
}

/** True when `a` is better than `b` beyond the noise: the interval of a - b excludes zero on a's better side. */
function significantlyBetter(a: Spread, b: Spread, better: 'lower' | 'higher'): boolean {
  if (a.replicates === null || b.replicates === null) return false;
  const difference = differenceInterval(b.replicates, a.replicates);
  return better === 'lower' ? difference.high < 0 : difference.low > 0;
}

interface Decided {
  decision: Decision;
  leaders: number[];
}

function decide(
  values: ReadonlyArray<number | null>,
  better: BetterWhen,
  spreads: Array<Spread | null>,
): Decided {
  const present = values.flatMap((value, i) => (value === null ? [] : [i]));
  // A figure only one run has is not a win.
  if (better === null || present.length < 2) return { decision: null, leaders: [] };
  const value = (i: number): number => values[i] as number;
  const order = [...present].sort((a, b) => (better === 'lower' ? value(a) - value(b) : value(b) - value(a)));
  const tested = present.every((i) => spreads[i]?.replicates);
  if (!tested) return { decision: 'untested', leaders: [] };
  const leaders = order.filter(
    (i) => !present.some((j) => significantlyBetter(spreads[j] as Spread, spreads[i] as Spread, better)),
  );
  return { decision: 'tested', leaders };
}

/** Compares runs against the first; needs at least two. */
export function compareRuns(runs: readonly LoadedRun[]): Comparison {
  const jsons = runs.map((r) => r.json);
  const specs = compareRowSpecs(jsons);
  const spreads = runs.map((run, i) => runSpreads(specs, run.records, numberField(run.json, 'duration'), i));
  const rows = specs.map((spec, r): ComparisonRow => {
    const values = jsons.map((json) => spec.read(json));
    const rowSpreads = spreads.map((perRun) => perRun[r] ?? null);
    const base = values[0] ?? null;
    const { decision, leaders } = decide(values, spec.better, rowSpreads);
    return {
      key: spec.key,
      label: spec.label,
      unit: spec.unit,
      better: spec.better,
      integer: spec.integer === true,
      values,
      intervals: rowSpreads.map((s) => (s?.replicates ? s.interval : null)),
      deltas: values.map((value, i) =>
        i === 0 ? null : delta(value, base, spec.better, rowSpreads[i] ?? null, rowSpreads[0] ?? null),
      ),
      decision,
      leaders,
      best: leaders.length === 1 ? (leaders[0] as number) : null,
    };
  });
  const described = runs.map(describeRun);
  return { runs: described, rows, notes: comparisonNotes(described, rows) };
}
