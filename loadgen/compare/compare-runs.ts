// `compare`'s arithmetic, kept apart from its display: each row's values (the result files' own figures), each
// run's delta from the first run (the baseline: "before", or "local vLLM"), the bootstrap interval of every value
// and delta drawn from the runs' per-request records, and which run is best: named only when the interval of its
// difference from each other run excludes zero, the very interval the table's CI column shows, so the best column
// never contradicts it. Each row is its own test at the stated confidence. Runs without records still compare,
// on their figures alone, and such a row names no winner: a figure that was not tested is never a win. The
// result is plain data, printed as a table, as --json, or drawn in the HTML report.

import { basename } from 'node:path';
import { interruptionNote } from '../report/interruption.js';
import { failedCount, numberField, rateField, stringField } from '../report/result-fields.js';
import { readTarget } from '../report/run-target.js';
import { differenceInterval, type Interval } from './bootstrap.js';
import { type BetterWhen, compareRowSpecs } from './compare-rows.js';
import type { ComparedRun, Comparison, ComparisonRow, Decision, Delta, DeltaVerdict } from './comparison.js';
import { comparisonNotes } from './comparison-notes.js';
import type { LoadedRun } from './run-records.js';
import { runSpreads, type Spread } from './run-spreads.js';

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
