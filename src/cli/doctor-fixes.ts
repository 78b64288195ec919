// `tokenmeter doctor --command` and `--config`: the flags to the doctor's fixing workflow
// (src/doctor/command-line/fix-settings.ts), with what bench alone knows handed in (its switches, how it reads a
// config file, its file checks), and the result printed: the checklist and the corrected settings, or JSON.

import { type CheckResult, type CheckStatus, formatChecklist } from '../doctor/check.js';
import type { BenchFlagKinds } from '../doctor/command-line/bench-invocation.js';
import { fixSettings } from '../doctor/command-line/fix-settings.js';
import type { PlanOptions } from '../doctor/command-line/plan-fixes.js';
import { type OptionSpec, readConfig } from '../shared/option-schema.js';
import { BENCH_OPTIONS } from './bench-options.js';
import { EXIT_OK, EXIT_RUN_FAILED } from './command.js';

export interface FixesInput extends Omit<PlanOptions, 'baseUrl' | 'fileChecks'> {
  readonly command: string | undefined;
  readonly config: string | undefined;
  readonly apply: boolean;
  readonly json: boolean;
  readonly baseUrl: string | undefined;
}

/** How a benchmark command's flags take values, from bench's option table: none, several, or one. */
const BENCH_SPECS: readonly OptionSpec[] = BENCH_OPTIONS;

export const BENCH_FLAG_KINDS: BenchFlagKinds = {
  switches: new Set(BENCH_SPECS.filter((option) => option.type === 'boolean').map((option) => option.name)),
  multiValue: new Set(
    BENCH_SPECS.filter((option) => option.multipleValues === true).map((option) => option.name),
  ),
};

export async function runFixes(input: FixesInput): Promise<number> {
  const { benchFileProblems } = await import('../../loadgen/bench/input-checks.js');
  const result = await fixSettings(
    input.command === undefined
      ? { kind: 'config', path: input.config as string }
      : { kind: 'command', text: input.command },
    {
      baseUrl: input.baseUrl,
      timeoutMs: input.timeoutMs,
      doctorBackend: input.doctorBackend,
      apply: input.apply,
      env: process.env,
      flagKinds: BENCH_FLAG_KINDS,
      readConfig,
      fileProblems: benchFileProblems,
    },
  );
  const { plan, corrected, reasons, notes, written } = result;
  if (input.json) {
    const answer = {
      ok: result.ok,
      checks: plan.before,
      changes: reasons,
      corrected,
      ...(notes.length > 0 ? { notes } : {}),
      checksAfter: plan.after,
      ...(written === undefined ? {} : { written }),
    };
    process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
  } else {
    process.stdout.write(
      formatChecklist(`tokenmeter doctor: the ${result.what}'s endpoint ${plan.target}`, plan.before),
    );
    process.stdout.write(formatFixes(result.what, corrected, reasons, plan.after, notes));
    if (input.apply) {
      process.stdout.write(
        written === undefined
          ? '--apply: nothing to change, no file written\n'
          : `--apply: wrote ${written} (${input.config} is unchanged)\n`,
      );
    }
  }
  return result.ok ? EXIT_OK : EXIT_RUN_FAILED;
}

// The doctor's answer for a benchmark's settings: the checklist, then the corrected settings with one line per
// change saying why, then how the checks went with the changes made.
function tally(results: readonly CheckResult[]): string {
  const count = (s: CheckStatus) => results.filter((r) => r.status === s).length;
  return `${count('pass')} ok, ${count('warn')} warnings, ${count('fail')} failing, ${count('skip')} skipped`;
}

export function formatFixes(
  what: 'command' | 'config',
  corrected: string,
  /** One reason per change, in the form's own terms. */
  reasons: readonly string[],
  after: readonly CheckResult[],
  notes: readonly string[] = [],
): string {
  if (reasons.length === 0) return `\nthe ${what} needs no change the doctor can make\n`;
  const lines = [
    '',
    `corrected ${what} (${reasons.length} change${reasons.length === 1 ? '' : 's'}):`,
    '',
    corrected,
    '',
    'why:',
    ...reasons.map((r) => `  - ${r}`),
    ...notes.map((n) => `  - ${n}`),
    '',
    `checked again with these changes: ${tally(after)}`,
  ];
  return `${lines.join('\n')}\n`;
}
