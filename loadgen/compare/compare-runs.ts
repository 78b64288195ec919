// `compare`'s arithmetic, kept apart from its display: each row's values, each run's delta from the first
// run (the baseline: "before", or "local vLLM"), whether that delta is better or worse, and which run is best.
// The result is plain data, printed as a table, as --json, or drawn in the HTML report.

import { basename } from 'node:path';
import type { LoadedResult } from '../report/read-result-file.js';
import { numberField, rateField, stringField } from '../report/result-fields.js';
import { type BetterWhen, compareRowSpecs } from './compare-rows.js';
import { comparisonNotes } from './comparison-notes.js';

export type DeltaVerdict = 'better' | 'worse' | 'same';

export interface Delta {
  /** Run minus baseline, in the row's unit. */
  absolute: number;
  /** Change relative to the baseline in percent; null when the baseline is 0. */
  percent: number | null;
  /** Null for rows with no better side (duration). */
  verdict: DeltaVerdict | null;
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
}

export interface ComparisonRow {
  key: string;
  label: string;
  unit: string;
  better: BetterWhen;
  integer: boolean;
  /** One per run, null where that run's file lacks the figure. */
  values: Array<number | null>;
  /** One per run: null for the baseline and where either value is missing. */
  deltas: Array<Delta | null>;
  /** Index of the single best run; null when the row has no better side, fewer than two runs have it, or the best is a tie. */
  best: number | null;
}

export interface Comparison {
  runs: ComparedRun[];
  rows: ComparisonRow[];
  /** Sentences about what makes the runs hard to compare (different settings, low success). */
  notes: string[];
}

function letter(index: number): string {
  return index < 26 ? String.fromCharCode(65 + index) : `R${index + 1}`;
}

function describeRun(result: LoadedResult, index: number): ComparedRun {
  const { json, path } = result;
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
  };
}

function delta(value: number | null, base: number | null, better: BetterWhen): Delta | null {
  if (value === null || base === null) return null;
  const absolute = value - base;
  const percent = base === 0 ? null : (absolute / Math.abs(base)) * 100;
  let verdict: DeltaVerdict | null = null;
  if (better !== null) {
    if (absolute === 0) verdict = 'same';
    else verdict = absolute < 0 === (better === 'lower') ? 'better' : 'worse';
  }
  return { absolute, percent, verdict };
}

function bestIndex(values: ReadonlyArray<number | null>, better: BetterWhen): number | null {
  // A figure only one run has is not a win.
  if (better === null || values.filter((v) => v !== null).length < 2) return null;
  let best: number | null = null;
  let tie = false;
  values.forEach((value, index) => {
    if (value === null) return;
    const current = best === null ? null : (values[best] as number);
    if (current === null || (better === 'lower' ? value < current : value > current)) {
      best = index;
      tie = false;
    } else if (value === current) {
      tie = true;
    }
  });
  return tie ? null : best;
}

/** Compares runs against the first; needs at least two. */
export function compareRuns(results: readonly LoadedResult[]): Comparison {
  const jsons = results.map((r) => r.json);
  const rows = compareRowSpecs(jsons).map((spec): ComparisonRow => {
    const values = jsons.map((json) => spec.read(json));
    const base = values[0] ?? null;
    return {
      key: spec.key,
      label: spec.label,
      unit: spec.unit,
      better: spec.better,
      integer: spec.integer === true,
      values,
      deltas: values.map((value, i) => (i === 0 ? null : delta(value, base, spec.better))),
      best: bestIndex(values, spec.better),
    };
  });
  const runs = results.map(describeRun);
  return { runs, rows, notes: comparisonNotes(runs, rows) };
}
