// What every `tokenmeter <command>` is: the Command interface main.ts runs, and defineCommand, which gives a
// command's run its flags' values typed from its own option specs.
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
