// What `compare` produces, as plain data: the runs compared, one row per figure with each run's value, interval
// and delta from the baseline, and the notes on comparability. compare-runs.ts computes it; the text, JSON and
// HTML presenters and the notes read it.
import type { FailedSource } from '../report/result-fields.js';
import type { RunTarget } from '../report/run-target.js';
import type { Interval } from './bootstrap.js';
import type { BetterWhen } from './compare-rows.js';

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
