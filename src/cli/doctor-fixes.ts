// `tokenmeter doctor --command` and `--config`: the doctor's checks run against what a benchmark's settings name,
// answered with the settings corrected (and, with --apply, the corrected config written beside the old one).

import { type CheckResult, check } from '../doctor/check.js';
import type { BenchFlagKinds } from '../doctor/command-line/bench-invocation.js';
import { applyToCommand, formatCommand, readCommand } from '../doctor/command-line/command-source.js';
import {
  applyToConfig,
  configSource,
  inConfigTerms,
  writeBeside,
} from '../doctor/command-line/config-source.js';
import { formatFixes } from '../doctor/command-line/format-fixes.js';
import { type NamedFiles, type PlanOptions, planFixes } from '../doctor/command-line/plan-fixes.js';
import { formatChecklist } from '../doctor/format-checklist.js';
import { readConfig } from './bench-config-file.js';
import { BENCH_OPTIONS } from './bench-options.js';
import { EXIT_OK, EXIT_RUN_FAILED } from './exit-codes.js';

export interface FixesInput extends Omit<PlanOptions, 'baseUrl'> {
  readonly command: string | undefined;
  readonly config: string | undefined;
  readonly apply: boolean;
  readonly json: boolean;
  readonly baseUrl: string | undefined;
}

/** How a benchmark command's flags take values, from bench's option table: none, several, or one. */
export const BENCH_FLAG_KINDS: BenchFlagKinds = {
  switches: new Set(BENCH_OPTIONS.filter((option) => option.type === 'boolean').map((option) => option.name)),
  multiValue: new Set(
    BENCH_OPTIONS.filter((option) => option.multipleValues === true).map((option) => option.name),
  ),
};

const FILE_TITLES = { tokenizer: 'Tokenizer file', dataset: 'Dataset file' } as const;

/** The load generator's own checks of the files the settings name, as checklist lines. */
async function benchFileChecks(files: NamedFiles): Promise<CheckResult[]> {
  const { benchFileProblems } = await import('../../loadgen/bench/input-checks.js');
  const program = files.reader === 'vllm' ? "vLLM's benchmark" : 'bench';
  const problems = await benchFileProblems(files);
  const named = [
    ...(files.tokenizer === undefined ? [] : ['tokenizer' as const]),
    ...(files.datasetPath === undefined ? [] : ['dataset' as const]),
  ];
  return named.map((file) => {
    const problem = problems.find((p) => p.file === file);
    return problem === undefined
      ? check(
          `${file}-file`,
          FILE_TITLES[file],
          'pass',
          `${program} can read ${file === 'tokenizer' ? files.tokenizer : files.datasetPath}`,
        )
      : check(
          `${file}-file`,
          FILE_TITLES[file],
          'fail',
          problem.problem,
          `correct the path: ${program} stops at this before it sends anything`,
        );
  });
}

export async function runFixes(input: FixesInput): Promise<number> {
  const options: PlanOptions = {
    baseUrl: input.baseUrl,
    timeoutMs: input.timeoutMs,
    doctorBackend: input.doctorBackend,
    fileChecks: benchFileChecks,
  };
  let corrected: string;
  let reasons: string[];
  let notes: string[] = [];
  let written: string | undefined;
  let plan: Awaited<ReturnType<typeof planFixes>>;
  if (input.command !== undefined) {
    const source = readCommand(input.command, process.env, BENCH_FLAG_KINDS);
    plan = await planFixes(source, options);
    corrected = formatCommand(applyToCommand(source.invocation, plan.changes));
    reasons = plan.changes.map((c) => c.why);
  } else {
    const path = input.config as string;
    const config = readConfig(path);
    plan = await planFixes(configSource(config, process.env), options);
    const fixed = applyToConfig(config, plan.changes);
    corrected = JSON.stringify(fixed.config, null, 2);
    reasons = plan.changes.map((c) => inConfigTerms(c.why));
    notes = fixed.shellSteps;
    if (input.apply && plan.changes.length > 0) written = writeBeside(path, fixed.config);
  }
  const failed = plan.after.some((r) => r.status === 'fail');
  if (input.json) {
    const answer = {
      ok: !failed,
      checks: plan.before,
      changes: reasons,
      corrected,
      ...(notes.length > 0 ? { notes } : {}),
      checksAfter: plan.after,
      ...(written === undefined ? {} : { written }),
    };
    process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
  } else {
    const what = input.command === undefined ? 'config' : 'command';
    process.stdout.write(
      formatChecklist(`tokenmeter doctor: the ${what}'s endpoint ${plan.target}`, plan.before),
    );
    process.stdout.write(formatFixes(what, corrected, reasons, plan.after, notes));
    if (input.apply) {
      process.stdout.write(
        written === undefined
          ? '--apply: nothing to change, no file written\n'
          : `--apply: wrote ${written} (${input.config} is unchanged)\n`,
      );
    }
  }
  return failed ? EXIT_RUN_FAILED : EXIT_OK;
}
