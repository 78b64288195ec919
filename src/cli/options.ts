// Declarative command-line options: each command lists its flags once, and parsing, validation, `--help` text and
// "did you mean" suggestions all come from that one list.
import { parseArgs } from 'node:util';
import { nearestNames } from '../shared/nearest-names.js';
import { UsageError } from '../shared/usage-error.js';
import { flexibleArgv } from './flexible-argv.js';

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
  /**
   * A `list` that also takes several values after one flag, as Python's argparse `nargs='+'` does in vLLM's
   * command lines (`--lora-modules a b c`): the words after the flag, up to the next flag, are its values.
   */
  readonly multipleValues?: true;
}

/** `--flag a b c` -> `--flag a --flag b --flag c` for the specs that take several values after one flag. */
function spreadMultipleValues(specs: readonly OptionSpec[], argv: readonly string[]): string[] {
  const spread = new Set(specs.filter((s) => s.multipleValues === true).map((s) => `--${s.name}`));
  if (spread.size === 0) return [...argv];
  const out: string[] = [];
  let open: string | undefined;
  for (const word of argv) {
    if (word === '--') open = undefined;
    else if (word.startsWith('-')) open = spread.has(word) ? word : undefined;
    else if (open !== undefined && out[out.length - 1] !== open) out.push(open);
    out.push(word);
  }
  return out;
}

export type OptionValue = string | number | boolean | string[] | undefined;
export type ParsedOptions = Record<string, OptionValue>;

export interface ParsedCommandLine {
  readonly options: ParsedOptions;
  readonly positionals: string[];
  /** Names of the flags the user actually typed (or set through their environment variable). */
  readonly given: ReadonlySet<string>;
}

/** "Did you mean vllm?" after a sentence when one of `known` is close to `typed`, else nothing. */
export function didYouMean(typed: string, known: readonly string[]): string {
  const near = nearestNames(typed, known);
  return near.length > 0 ? ` Did you mean ${near.join(' or ')}?` : '';
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
    throw new UsageError(
      `--${spec.name} must be one of ${spec.choices.join(', ')} (got '${last}').${didYouMean(last, spec.choices)}`,
    );
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
  // Not strict: node's own checks word their errors in its terms ("argument is ambiguous") and refuse a negative
  // number as a value; the tokens are checked below instead, in ours.
  // vLLM's spellings (flexible-argv.ts) first, so that `--lora_modules a b` spreads like `--lora-modules a b`.
  const parsed = parseArgs({
    args: spreadMultipleValues(specs, flexibleArgv(argv)),
    options: config,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  checkTokens(command, specs, parsed.tokens, allowPositionals);
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

type ArgToken = NonNullable<ReturnType<typeof parseArgs>['tokens']>[number];

/** A value that reads as a flag rather than as a value: `--seed` after `--num-prompts`, but not `-1`. */
function looksLikeFlag(value: string): boolean {
  return value.startsWith('-') && Number.isNaN(Number(value)) && value.trim().toLowerCase() !== '-inf';
}

function checkTokens(
  command: string,
  specs: readonly OptionSpec[],
  tokens: readonly ArgToken[],
  allowPositionals: boolean,
): void {
  for (const token of tokens) {
    if (token.kind === 'positional' && !allowPositionals) {
      throw new UsageError(`'${command}' takes no positional arguments (got '${token.value}')`);
    }
    if (token.kind !== 'option') continue;
    const spec = specs.find((s) => s.name === token.name);
    if (spec === undefined) {
      const suggestions = nearestNames(
        token.name,
        specs.map((s) => s.name),
      );
      const hint =
        suggestions.length > 0 ? ` Did you mean ${suggestions.map((s) => `--${s}`).join(' or ')}?` : '';
      throw new UsageError(`unknown option ${token.rawName} for '${command}'.${hint}`);
    }
    if (spec.type === 'boolean') {
      if (token.value !== undefined)
        throw new UsageError(`--${spec.name} is a switch and takes no value (got '${token.value}')`);
    } else if (token.value === undefined) {
      throw new UsageError(`--${spec.name} needs a value: ${usageOf(spec)}`);
    } else if (!token.inlineValue && looksLikeFlag(token.value)) {
      throw new UsageError(`--${spec.name} needs a value (${usageOf(spec)}) but got the flag ${token.value}`);
    }
  }
}

function usageOf(spec: OptionSpec): string {
  return `--${spec.name} ${spec.valueName ?? spec.type.toUpperCase()}`;
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
