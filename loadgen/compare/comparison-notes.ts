// What a reader should know before trusting a comparison. A comparison isolates one thing (the server version,
// the gateway in the path, the model); every other way the runs differ is named, and when they differ in more
// than one way the first note says so: a change in the figures cannot then be put down to any one of them.
// Different models are expected for "local vLLM vs hosted gateway"; runs with different offered load are not a
// before/after pair; a run with a low success rate has latencies of the survivors only; a run without its
// target (an earlier version, or vLLM's file) cannot be checked; a run cut short by Ctrl-C describes only the part
// that ran.

import { DEFAULT_VERDICT_THRESHOLDS } from '../report/verdicts.js';
import type { ComparedRun, ComparisonRow } from './comparison.js';

interface Aspect {
  /** Plural, as in "models differ". */
  readonly what: string;
  /** Singular, as in "differ in more than one way (model, host)". */
  readonly short: string;
  /** The run's value; null when the run does not say (then it is left out of the check). */
  pick(run: ComparedRun): string | null;
  /** Appended to the note. */
  readonly consequence?: string;
}

const NOT_SAME_LOAD = 'the runs did not offer the same load';

const ASPECTS: readonly Aspect[] = [
  { what: 'models', short: 'model', pick: (run) => run.model ?? run.target?.model ?? null },
  { what: 'base URLs', short: 'base URL', pick: (run) => run.target?.baseUrl ?? null },
  { what: 'backends', short: 'backend', pick: (run) => run.backend },
  {
    what: 'paths (through a tokenmeter gateway or direct)',
    short: 'gateway or direct',
    pick: (run) =>
      run.target === null
        ? null
        : run.target.gatewayVersion === null
          ? 'direct'
          : `through tokenmeter gateway ${run.target.gatewayVersion}`,
  },
  {
    what: 'tokenmeter versions',
    short: 'tokenmeter version',
    pick: (run) => run.target?.tokenmeterVersion ?? null,
  },
  { what: 'hosts', short: 'host', pick: (run) => run.target?.host ?? null },
  {
    what: 'request rates (req/s)',
    short: 'request rate',
    pick: (run) => String(run.requestRate ?? 'inf'),
    consequence: NOT_SAME_LOAD,
  },
  {
    what: 'max concurrency',
    short: 'max concurrency',
    pick: (run) => String(run.maxConcurrency ?? 'none'),
    consequence: NOT_SAME_LOAD,
  },
  {
    what: 'prompt counts',
    short: 'prompt count',
    pick: (run) => (run.numPrompts === null ? null : String(run.numPrompts)),
    consequence: NOT_SAME_LOAD,
  },
];

/** The note for an aspect the runs differ in, or null when every run that says agrees. */
function differing(runs: readonly ComparedRun[], aspect: Aspect): string | null {
  const values = runs.map((run) => aspect.pick(run));
  const known = values.filter((value): value is string => value !== null);
  if (new Set(known).size <= 1) return null;
  const list = runs.map((run, i) => `${run.letter} ${values[i] ?? 'unknown'}`).join(', ');
  const note = `${aspect.what} differ: ${list}`;
  return aspect.consequence === undefined ? note : `${note}: ${aspect.consequence}`;
}

export function comparisonNotes(runs: readonly ComparedRun[], rows: readonly ComparisonRow[]): string[] {
  const differences = ASPECTS.map((aspect) => ({ aspect, note: differing(runs, aspect) })).filter(
    (d): d is { aspect: Aspect; note: string } => d.note !== null,
  );
  const notes: string[] = [];
  if (differences.length > 1) {
    notes.push(
      `the runs differ in more than one way (${differences.map((d) => d.aspect.short).join(', ')}): a ` +
        'difference in the figures cannot be put down to any one of them',
    );
  }
  notes.push(...differences.map((d) => d.note));

  const untargeted = runs.filter((run) => run.target === null).map((run) => run.letter);
  if (untargeted.length > 0 && untargeted.length < runs.length) {
    notes.push(
      `${untargeted.join(', ')}: no target saved (an earlier version, or vLLM's file): cannot tell whether it ` +
        'measured the same endpoint the same way',
    );
  }

  for (const run of runs) if (run.interrupted !== null) notes.push(`${run.letter}: ${run.interrupted}`);
  for (const run of runs) {
    if (run.failedSource === 'errors' || run.failedSource === 'num_prompts')
      notes.push(
        `${run.letter}: the file saves no failed count (vLLM 0.8.5 and earlier): Failed requests is derived from ${
          run.failedSource === 'errors' ? 'its errors array' : 'num_prompts - completed'
        }`,
      );
    else if (run.failedSource === null) notes.push(`${run.letter}: the file saves no failed count: unknown`);
  }

  const success = rows.find((row) => row.key === 'tokenmeter.success_rate');
  const floor = DEFAULT_VERDICT_THRESHOLDS.minSuccessRate * 100;
  success?.values.forEach((value, i) => {
    if (value !== null && value < floor) {
      notes.push(
        `${runs[i]?.letter}: success rate ${value.toFixed(1)}% is below ${floor.toFixed(0)}%: its latencies ` +
          'describe only the requests that got through',
      );
    }
  });
  return notes;
}
