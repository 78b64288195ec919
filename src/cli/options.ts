// Declarative command-line options: each command lists its flags once, and parsing, validation, `--help` text and
// "did you mean" suggestions all come from that one list.
import { parseArgs } from 'node:util';
import { nearestNames } from '../shared/nearest-names.js';
import { UsageError } from '../shared/usage-error.js';

export type OptionType = 'string' | 'number' | 'integer' | 'boolean' | 'list';

export interface OptionSpec {
  /** Long flag name without the leading dashes, e.g. `max-tokens`. */
  readonly name: string;
  readonly type: OptionType;
  readonly help: string;
  /** Placeholder shown in `--help`, e.g. `PORT`. */
  readonly valueName?: string;
  readonly default?: string | number | boolean;
  readonly choices?: readonly string[];
  readonly min?: number;
  readonly max?: number;
  /** Environment variable consulted when the flag is absent. */
  readonly env?: string;
  /** `list` options may be repeated and/or comma-separated. */
  readonly short?: string;
}

export type OptionValue = string | number | boolean | string[] | undefined;
export type ParsedOptions = Record<string, OptionValue>;

export interface ParsedCommandLine {
  readonly options: ParsedOptions;
  readonly positionals: string[];
  /** Names of the flags the user actually typed (or set through their environment variable). */
  readonly given: ReadonlySet<string>;
}

function toNumber(spec: OptionSpec, raw: string): number {
  const value = raw.trim().toLowerCase() === 'inf' ? Number.POSITIVE_INFINITY : Number(raw);
  const integerWanted = spec.type === 'integer';
  if (raw.trim() === '' || Number.isNaN(value) || (integerWanted && !Number.isInteger(value))) {
    throw new UsageError(
      `--${spec.name} must be ${integerWanted ? 'an integer' : 'a number'} (got '${raw}')`,
    );
  }
  if (spec.min !== undefined && value < spec.min) {
    throw new UsageError(`--${spec.name} must be at least ${spec.min} (got ${raw})`);
  }
  if (spec.max !== undefined && value > spec.max) {
    throw new UsageError(`--${spec.name} must be at most ${spec.max} (got ${raw})`);
  }
  return value;
}

function convert(spec: OptionSpec, raw: string | boolean | Array<string | boolean>): OptionValue {
  if (spec.type === 'boolean') return raw === true || raw === 'true';
  const values = (Array.isArray(raw) ? raw : [raw]).map(String);
  if (spec.type === 'list') {
    return values
      .flatMap((v) => v.split(','))
      .map((v) => v.trim())
      .filter((v) => v !== '');
  }
  const last = values[values.length - 1] ?? '';
  if (spec.choices && !spec.choices.includes(last)) {
    throw new UsageError(`--${spec.name} must be one of ${spec.choices.join(', ')} (got '${last}')`);
  }
  return spec.type === 'string' ? last : toNumber(spec, last);
}

function fromEnvironment(spec: OptionSpec, env: NodeJS.ProcessEnv): string | undefined {
  if (!spec.env) return undefined;
  const value = env[spec.env];
  return value === undefined || value === '' ? undefined : value;
}

export function parseCommandLine(
  command: string,
  specs: readonly OptionSpec[],
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  allowPositionals = false,
): ParsedCommandLine {
  const config: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {};
  for (const spec of specs) {
    config[spec.name] = {
      type: spec.type === 'boolean' ? 'boolean' : 'string',
      multiple: spec.type !== 'boolean',
      ...(spec.short ? { short: spec.short } : {}),
    };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...argv], options: config, strict: true, allowPositionals });
  } catch (error) {
    throw translateParseError(command, specs, error);
  }
  const options: ParsedOptions = {};
  const given = new Set<string>();
  for (const spec of specs) {
    const raw = parsed.values[spec.name];
    const envRaw = raw === undefined ? fromEnvironment(spec, env) : undefined;
    if (raw !== undefined) given.add(spec.name);
    if (envRaw !== undefined) given.add(spec.name);
    const source = raw ?? envRaw;
    options[spec.name] = source === undefined ? spec.default : convert(spec, source);
  }
  return { options, positionals: parsed.positionals, given };
}

function translateParseError(command: string, specs: readonly OptionSpec[], error: unknown): UsageError {
  const err = error as { code?: string; message?: string };
  const message = err.message ?? String(error);
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = /'(-{1,2}[^'\s]+)'/.exec(message)?.[1] ?? '';
    const suggestions = nearestNames(
      flag.replace(/^-+/, '').split('=')[0] ?? '',
      specs.map((s) => s.name),
    );
    const hint =
      suggestions.length > 0 ? ` Did you mean ${suggestions.map((s) => `--${s}`).join(' or ')}?` : '';
    return new UsageError(`unknown option ${flag || message} for '${command}'.${hint}`);
  }
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return new UsageError(message.replace(/\.$/, '').replace(/ <value>/, ' needs a value'));
  }
  if (err.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    return new UsageError(`'${command}' takes no positional arguments (${message})`);
  }
  return new UsageError(message);
}

export function formatOptionsHelp(specs: readonly OptionSpec[]): string {
  const rows = specs.map((spec) => {
    const value = spec.type === 'boolean' ? '' : ` ${spec.valueName ?? spec.type.toUpperCase()}`;
    const flag = `${spec.short ? `-${spec.short}, ` : ''}--${spec.name}${value}`;
    const extras: string[] = [];
    if (spec.choices) extras.push(`one of: ${spec.choices.join(', ')}`);
    if (spec.default !== undefined && spec.default !== false) extras.push(`default: ${String(spec.default)}`);
    if (spec.env) extras.push(`env: ${spec.env}`);
    // A help text that already ends in parentheses takes the extras inside them: "(0 = never; default: 0)".
    const text =
      extras.length === 0
        ? spec.help
        : spec.help.endsWith(')')
          ? `${spec.help.slice(0, -1)}; ${extras.join('; ')})`
          : `${spec.help} (${extras.join('; ')})`;
    return { flag, text };
  });
  const width = Math.min(34, Math.max(...rows.map((r) => r.flag.length), 0) + 2);
  return rows
    .map(({ flag, text }) => {
      const pad = flag.length + 2 > width ? `\n${' '.repeat(width + 2)}` : ' '.repeat(width - flag.length);
      return `  ${flag}${pad}${text}`;
    })
    .join('\n');
}
