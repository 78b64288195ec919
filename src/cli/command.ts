// What every `tokenmeter <command>` is: the Command interface main.ts runs, and defineCommand, which gives a
// command's run its flags' values typed from its own option specs; and the exit statuses those runs return (at the end).
import {
  type OptionSpec,
  type OptionValues,
  type ParsedCommandLine,
  parseCommandLine,
} from '../shared/option-schema.js';

/**
 * One `tokenmeter <command>`: its flags, its help text, and what it does (its name and summary are in
 * commands.ts). `run` parses the words after the command name with the command's own specs and returns the
 * process exit status.
 */
export interface Command {
  /** Lines printed under "Usage:" in `--help`, without the leading `tokenmeter`. */
  readonly usage: readonly string[];
  readonly options: readonly OptionSpec[];
  /** Extra paragraphs printed after the options in `--help`. */
  readonly details?: string;
  run(name: string, argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number>;
}

/** A command as written: its `run` reads its flags' values typed as its specs declare them. */
export interface CommandDefinition<Specs extends readonly OptionSpec[]>
  extends Omit<Command, 'options' | 'run'> {
  readonly options: Specs;
  readonly allowPositionals?: boolean;
  run(commandLine: ParsedCommandLine<OptionValues<Specs>>): Promise<number>;
}

/** The command, its values typed from its specs (inferred: no `as const` needed where the specs are written). */
export function defineCommand<const Specs extends readonly OptionSpec[]>(
  definition: CommandDefinition<Specs>,
): Command {
  const { run, allowPositionals = false, ...described } = definition;
  return {
    ...described,
    run: (name, argv, env) => run(parseCommandLine(name, definition.options, argv, env, allowPositionals)),
  };
}

// ---- exit codes ----
// The CLI's exit statuses, stated once (docs/loadgen-reference.md lists them for scripts and CI). 2 for a usage mistake and
// 1 for a failed run are what vLLM's benchmark_serving.py gives (argparse, an uncaught exception); 130 is the
// shell's 128 + SIGINT; 99 for a crossed threshold is k6's, which CI scripts gating on thresholds already know.
// Other outcomes a script must tell apart take numbers of their own, never one of these.

/** Everything ran; for bench, at least 90% of requests succeeded, --smoke passed and every --threshold held. */
export const EXIT_OK = 0;
/** The run could not happen or failed: unreachable server, unreadable dataset, under 90% succeeded (unless
 *  --no-success-floor), nothing succeeded, --smoke failed, doctor failed. */
export const EXIT_RUN_FAILED = 1;
/** A mistake on the command line or in --config's values: nothing was sent. */
export const EXIT_USAGE = 2;
/** bench stopped by --max-cost or --max-total-tokens: nothing more was sent once the limit was reached; the
 *  report, result JSON and records of what ran are valid and say why it stopped (docs/cost.md). */
export const EXIT_BUDGET_STOPPED = 3;
/** bench stopped by --stop-on-saturation or --max-error-rate: the answer was known (the server saturated, or too
 *  many requests failed) before the run's end; the report, result JSON (`tokenmeter.early_stop`) and records of
 *  what ran are saved and say which rule fired, with its numbers (docs/loadgen.md, "Stopping early"). sweep: a
 *  level was stopped so, and no level after it ran. */
export const EXIT_STOPPED_EARLY = 4;
/** Stopped by Ctrl-C (SIGINT) or SIGTERM; the report of what ran is printed and the records are kept. */
export const EXIT_INTERRUPTED = 130;
/** bench ran and its figures are valid, but a --threshold was not kept. */
export const EXIT_THRESHOLD_FAILED = 99;
