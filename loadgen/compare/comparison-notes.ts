// What a reader should know before trusting a comparison: runs with different offered load are not a
// before/after pair (different models are expected for "local vLLM vs hosted gateway", so they are only
// named), and a run with a low success rate has latencies of the survivors only.

import { DEFAULT_VERDICT_THRESHOLDS } from '../report/verdicts.js';
import type { ComparedRun, ComparisonRow } from './compare-runs.js';

function differing(
  runs: readonly ComparedRun[],
  pick: (run: ComparedRun) => string,
  what: string,
): string | null {
  const values = runs.map(pick);
  if (new Set(values).size <= 1) return null;
  return `${what} differ: ${runs.map((run, i) => `${run.letter} ${values[i]}`).join(', ')}`;
}

export function comparisonNotes(runs: readonly ComparedRun[], rows: readonly ComparisonRow[]): string[] {
  const notes: string[] = [];
  const models = differing(runs, (run) => run.model ?? 'unknown', 'models');
  if (models !== null) notes.push(models);
  const load = [
    differing(runs, (run) => String(run.requestRate ?? 'inf'), 'request rates (req/s)'),
    differing(runs, (run) => String(run.maxConcurrency ?? 'none'), 'max concurrency'),
    differing(runs, (run) => String(run.numPrompts ?? 'unknown'), 'prompt counts'),
  ].filter((note): note is string => note !== null);
  for (const note of load) notes.push(`${note}: the runs did not offer the same load`);

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
