// `doctor --command` and `--config` as one workflow, without the CLI: read the benchmark's settings (a command line,
// or a bench config file), plan the fixes against its endpoint and files (plan-fixes.ts), apply them to the same
// text, and with `apply` write the corrected config beside the old one (never over it). The caller prints the
// result; what bench alone knows (its switches, how it reads a config file, its file checks) is handed in, since
// the doctor imports neither the CLI nor the load generator.
import type { BenchFlagKinds } from './bench-invocation.js';
import { applyToCommand, formatCommand, readCommand } from './command-source.js';
import {
  applyToConfig,
  type ConfigObject,
  configSource,
  inConfigTerms,
  writeBeside,
} from './config-source.js';
import { type FileProblems, fileChecks } from './file-checks.js';
import { type FixPlan, type PlanOptions, planFixes } from './plan-fixes.js';

/** The settings to fix: a benchmark command line, or the path of a bench config file. */
export type SettingsToFix =
  | { readonly kind: 'command'; readonly text: string }
  | { readonly kind: 'config'; readonly path: string };

export interface FixSettingsOptions extends Omit<PlanOptions, 'fileChecks'> {
  /** Write the corrected config beside the file (config only; nothing is written when nothing changes). */
  readonly apply: boolean;
  /** The shell's variables, as the command or the run would see them. */
  readonly env: NodeJS.ProcessEnv;
  /** How a benchmark command's flags take values: bench's option table, handed in. */
  readonly flagKinds: BenchFlagKinds;
  /** Reads a bench config file as bench reads it (its errors are bench's), handed in. */
  readonly readConfig: (path: string) => ConfigObject;
  /** The load generator's checks of the files the settings name; without it, the files are not checked. */
  readonly fileProblems?: FileProblems;
}

export interface FixedSettings {
  readonly what: SettingsToFix['kind'];
  readonly plan: FixPlan;
  /** The corrected command line, or the corrected config as JSON text. */
  readonly corrected: string;
  /** Why each change was made, in the settings' own terms (flags, or config keys). */
  readonly reasons: readonly string[];
  /** Steps a config file cannot take itself (a variable to export in the shell). */
  readonly notes: readonly string[];
  /** Where the corrected config was written, with `apply` and at least one change. */
  readonly written: string | undefined;
  /** No check fails once the changes are made. */
  readonly ok: boolean;
}

export async function fixSettings(
  settings: SettingsToFix,
  options: FixSettingsOptions,
): Promise<FixedSettings> {
  const { fileProblems } = options;
  const planOptions: PlanOptions = {
    baseUrl: options.baseUrl,
    timeoutMs: options.timeoutMs,
    doctorBackend: options.doctorBackend,
    ...(fileProblems === undefined ? {} : { fileChecks: (files) => fileChecks(files, fileProblems) }),
  };
  if (settings.kind === 'command') {
    const source = readCommand(settings.text, options.env, options.flagKinds);
    const plan = await planFixes(source, planOptions);
    return {
      what: 'command',
      plan,
      corrected: formatCommand(applyToCommand(source.invocation, plan.changes)),
      reasons: plan.changes.map((c) => c.why),
      notes: [],
      written: undefined,
      ok: passes(plan),
    };
  }
  const config = options.readConfig(settings.path);
  const plan = await planFixes(configSource(config, options.env), planOptions);
  const fixed = applyToConfig(config, plan.changes);
  return {
    what: 'config',
    plan,
    corrected: JSON.stringify(fixed.config, null, 2),
    reasons: plan.changes.map((c) => inConfigTerms(c.why)),
    notes: fixed.shellSteps,
    written: options.apply && plan.changes.length > 0 ? writeBeside(settings.path, fixed.config) : undefined,
    ok: passes(plan),
  };
}

const passes = (plan: FixPlan): boolean => !plan.after.some((r) => r.status === 'fail');
