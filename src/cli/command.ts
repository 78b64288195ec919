import type { OptionSpec, OptionValues, ParsedCommandLine } from '../shared/option-schema.js';

/**
 * One `tokenmeter <command>`: its flags, its help text, and what it does (its name and summary are in
 * commands.ts). `run` returns the process exit status; its flags come typed from the command's own specs.
 */
export interface Command<Specs extends readonly OptionSpec[] = readonly OptionSpec[]> {
  /** Lines printed under "Usage:" in `--help`, without the leading `tokenmeter`. */
  readonly usage: readonly string[];
  readonly options: Specs;
  /** Extra paragraphs printed after the options in `--help`. */
  readonly details?: string;
  readonly allowPositionals?: boolean;
  run(commandLine: ParsedCommandLine<OptionValues<Specs>>): Promise<number>;
}
