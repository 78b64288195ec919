import type { OptionSpec, ParsedCommandLine } from './options.js';

/**
 * One `tokenmeter <command>`: its flags, its help text, and what it does (its name and summary are in
 * commands.ts). `run` returns the process exit status.
 */
export interface Command {
  /** Lines printed under "Usage:" in `--help`, without the leading `tokenmeter`. */
  readonly usage: readonly string[];
  readonly options: readonly OptionSpec[];
  /** Extra paragraphs printed after the options in `--help`. */
  readonly details?: string;
  readonly allowPositionals?: boolean;
  run(commandLine: ParsedCommandLine): Promise<number>;
}
