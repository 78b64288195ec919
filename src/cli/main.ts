// Entry point of the `tokenmeter` CLI: picks the command, parses its flags, and turns every failure into a clear
// message and an exit status (2 for usage mistakes, 1 for failures at run time) instead of a stack trace;
// a failed listen too (describeListenError, at the end).
import { nearestNames } from '../shared/nearest-names.js';
import { formatOptionsHelp } from '../shared/option-schema.js';
import { packageVersion } from '../shared/package-version.js';
import { UsageError, UserFacingError } from '../shared/user-facing-error.js';
import type { Command } from './command.js';
import { EXIT_OK, EXIT_RUN_FAILED, EXIT_USAGE } from './command.js';
import { type CommandEntry, commands } from './commands.js';

export function topLevelHelp(): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  const list = commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`).join('\n');
  return [
    'tokenmeter: a measurement gateway for LLM APIs',
    '',
    'Usage: tokenmeter <command> [options]',
    '',
    'Commands:',
    list,
    '',
    "Run 'tokenmeter <command> --help' for a command's options.",
    'Options: --help, --version',
  ].join('\n');
}

export function commandHelp(entry: CommandEntry, command: Command): string {
  const parts = [
    `tokenmeter ${entry.name}: ${entry.summary}`,
    '',
    'Usage:',
    ...command.usage.map((line) => `  tokenmeter ${line}`),
    '',
    'Options:',
    // --help is handled before parsing, but listed with the rest so it lines up with them.
    formatOptionsHelp([
      ...command.options,
      { name: 'help', short: 'h', type: 'boolean', help: 'Show this help' },
    ]),
  ];
  if (command.details) parts.push('', command.details);
  return parts.join('\n');
}

/** The message with where to read more, after its last sentence or as a clause of it. */
function withHelpPointer(message: string, command: string): string {
  const pointer = `'tokenmeter ${command} --help'`;
  return /[.?!]$/.test(message) ? `${message} See ${pointer}.` : `${message}; see ${pointer}`;
}

export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${topLevelHelp()}\n`);
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    const hint = nearestNames(
      name,
      commands.map((c) => c.name),
    );
    const didYouMean = hint.length > 0 ? ` Did you mean '${hint[0]}'?` : '';
    process.stderr.write(`tokenmeter: unknown command '${name}'.${didYouMean} See 'tokenmeter --help'.\n`);
    return EXIT_USAGE;
  }
  const command = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${commandHelp(entry, command)}\n`);
    return 0;
  }
  try {
    return await command.run(entry.name, rest, process.env);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`tokenmeter ${entry.name}: ${withHelpPointer(error.message, entry.name)}\n`);
      return EXIT_USAGE;
    }
    const message = error instanceof UserFacingError ? error.message : describeListenError(error);
    if (message !== undefined) {
      process.stderr.write(`tokenmeter ${entry.name}: ${message}\n`);
      return EXIT_RUN_FAILED;
    }
    throw error;
  }
}

// Turns the errors of binding a listening socket (sim, serve, its metrics port) into one line saying what to do,
// instead of Node's stack trace.
interface SystemError {
  readonly code?: unknown;
  readonly syscall?: unknown;
  readonly address?: unknown;
  readonly port?: unknown;
}

const ADVICE: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the port is already in use (another tokenmeter, or another server?): choose another port',
  EACCES: 'permission denied: ports below 1024 need privileges; choose a port from 1024 up',
  EADDRNOTAVAIL: "that address is not one of this machine's: listen on 127.0.0.1, 0.0.0.0 or a local address",
};

/** One line for a failed listen(), or undefined for any other error. */
export function describeListenError(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, syscall, address, port } = error as SystemError;
  // A cluster worker's listen is done by the primary, which reports a failed bind as syscall 'bind'.
  if ((syscall !== 'listen' && syscall !== 'bind') || typeof code !== 'string') return undefined;
  const where =
    typeof address === 'string' && port !== undefined ? `${address}:${String(port)}` : 'the address';
  return `cannot listen on ${where}: ${ADVICE[code] ?? code}`;
}
