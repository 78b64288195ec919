// One option schema per command: each entry names its flag, its config-file key (the flag with '_' for '-'), its
// environment variable where there is one, its type, its default, its help line and its check. Argv parsing,
// `--config` files, "did you mean" for unknown flags and keys, `--help` text and the docs' flag tables all come
// from the one list, and the values come back typed from it (OptionValues), with no casts and no second default.
// The reader of times as typed (`500ms`, `2s`) is at the end.
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { flexibleArgv } from './flexible-argv.js';
import { isJsonObject, parseJsonText } from './json-object.js';
import { nearestNames } from './nearest-names.js';
import { fileErrorReason, readRegularFileSync } from './regular-file.js';
import { UsageError, UserFacingError } from './user-facing-error.js';

export type OptionType = 'string' | 'number' | 'integer' | 'boolean' | 'list';

export interface OptionSpec {
  /** Long flag name without the leading dashes, e.g. `max-tokens`. */
  readonly name: string;
  /** Its config-file key, where not the name with '_' (`max_tokens`); dotted for a nested one (`timing.itlMs`). */
  readonly key?: string;
  readonly type: OptionType;
  readonly help: string;
  /** Placeholder shown in `--help`, e.g. `PORT`. */
  readonly valueName?: string;
  /** The value when neither the flag, its environment variable nor a config file gives one. */
  readonly default?: string | number | boolean;
  readonly choices?: readonly string[];
  readonly min?: number;
  readonly max?: number;
  /** Environment variable consulted when the flag is absent. */
  readonly env?: string;
  readonly short?: string;
  /**
   * A `list` that also takes several values after one flag, as Python's argparse `nargs='+'` does in vLLM's
   * command lines (`--lora-modules a b c`): the words after the flag, up to the next flag, are its values.
   */
  readonly multipleValues?: true;
  /**
   * A check of one value beyond its type, range and choices (a flag's own, whatever the others say): the message
   * of a usage error when the value will not do, else undefined. Run on a typed value and on a config file's.
   */
  readonly check?: (value: never) => string | undefined;
  /** Accepted for another tool's command lines and read by no code, only noted: left out of OptionValues. */
  readonly acceptedOnly?: true;
}

/** What one spec's value is: a switch a boolean, a list its items, a number a number, a choice one of them. */
type ValueOf<S extends OptionSpec> = S['type'] extends 'boolean'
  ? boolean
  : S['type'] extends 'list'
    ? string[]
    : S['type'] extends 'number' | 'integer'
      ? number
      : S extends { readonly choices: readonly (infer C extends string)[] }
        ? C
        : string;

/** Switches and lists always have a value (off, empty); others only with a default. */
type AlwaysSet<S extends OptionSpec> = S extends { readonly default: string | number | boolean }
  ? true
  : S['type'] extends 'boolean' | 'list'
    ? true
    : false;

/** The name a spec's value is typed under: none for an accepted-only flag, or one whose name is any string. */
type TypedName<S extends OptionSpec> = S extends { readonly acceptedOnly: true }
  ? never
  : string extends S['name']
    ? never
    : S['name'];

/**
 * The typed values of a command's flags, by flag name, inferred from its specs (declared `as const`, or written
 * inside defineCommand). Specs typed only as OptionSpec (a list built at run time) add their values untyped.
 */
export type OptionValues<Specs extends readonly OptionSpec[]> = (OptionSpec extends Specs[number]
  ? Record<string, OptionValue>
  : unknown) & {
  -readonly [S in Specs[number] as TypedName<S>]: AlwaysSet<S> extends true
    ? ValueOf<S>
    : ValueOf<S> | undefined;
};

export type OptionValue = string | number | boolean | string[] | undefined;

export interface ParsedCommandLine<Values = Record<string, OptionValue>> {
  readonly options: Values;
  readonly positionals: string[];
  /** Names of the flags the user actually typed (or set through their environment variable). */
  readonly given: ReadonlySet<string>;
}

/** A spec's value when nothing gives one: its default, else off for a switch, empty for a list, else undefined. */
function absentValue(spec: OptionSpec): OptionValue {
  if (spec.default !== undefined) return spec.default;
  if (spec.type === 'boolean') return false;
  return spec.type === 'list' ? [] : undefined;
}

/** Every flag at its absent value: what a caller that builds values by hand fills the rest in from. */
export function absentValues<Specs extends readonly OptionSpec[]>(specs: Specs): OptionValues<Specs> {
  return Object.fromEntries(specs.map((spec) => [spec.name, absentValue(spec)])) as OptionValues<Specs>;
}

/** The key a config file gives this flag's value under. */
export function configKey(spec: OptionSpec): string {
  return spec.key ?? spec.name.replace(/-/g, '_');
}

/**
 * The values of the flags given (typed, or set through their environment variable) under their config keys, a
 * dotted key nested (`timing.itlMs` -> `{ timing: { itlMs } }`): what a command whose config file is nested lays
 * over that file.
 */
export function givenByKey(
  specs: readonly OptionSpec[],
  commandLine: ParsedCommandLine<Readonly<Record<string, unknown>>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const spec of specs) {
    if (!commandLine.given.has(spec.name)) continue;
    const path = configKey(spec).split('.');
    const field = path.pop() ?? spec.name;
    let section = out;
    for (const part of path) {
      const inner = section[part];
      const next: Record<string, unknown> = typeof inner === 'object' && inner !== null ? { ...inner } : {};
      section[part] = next;
      section = next;
    }
    section[field] = commandLine.options[spec.name];
  }
  return out;
}

/** "Did you mean vllm?" after a sentence when one of `known` is close to `typed`, else nothing. */
export function didYouMean(typed: string, known: readonly string[]): string {
  const near = nearestNames(typed, known);
  return near.length > 0 ? ` Did you mean ${near.join(' or ')}?` : '';
}

// ---- the command line ------------------------------------------------------------------------------------------

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

/** The value, once its spec's own check has passed it. */
function checked(spec: OptionSpec, value: OptionValue): OptionValue {
  // The check takes the value its spec's type gives: this value was converted by that spec.
  const problem = (spec.check as ((value: OptionValue) => string | undefined) | undefined)?.(value);
  if (problem !== undefined) throw new UsageError(problem);
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

export function parseCommandLine<Specs extends readonly OptionSpec[]>(
  command: string,
  specs: Specs,
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  allowPositionals = false,
): ParsedCommandLine<OptionValues<Specs>> {
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
  const options: Record<string, OptionValue> = {};
  const given = new Set<string>();
  for (const spec of specs) {
    const source = parsed.values[spec.name] ?? fromEnvironment(spec, env);
    if (source !== undefined) given.add(spec.name);
    options[spec.name] = source === undefined ? absentValue(spec) : checked(spec, convert(spec, source));
  }
  // The one place the values meet their type: each was converted by its own spec just above.
  return { options: options as OptionValues<Specs>, positionals: parsed.positionals, given };
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

// ---- --config files --------------------------------------------------------------------------------------------

/** A config file's top-level object: JSON, or YAML (`.yaml`, `.yml`) as `vllm bench serve --config` takes. */
export function readConfig(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readRegularFileSync(path);
  } catch (error) {
    throw new UserFacingError(`--config ${path}: ${fileErrorReason(error)}`, { cause: error });
  }
  const yaml = /\.ya?ml$/i.test(path);
  let value: unknown;
  try {
    value = yaml ? parseYaml(text) : parseJsonText(text);
  } catch (error) {
    throw new UserFacingError(
      `--config ${path} is not valid ${yaml ? 'YAML' : 'JSON'}: ${(error as Error).message.split('\n')[0]}`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UserFacingError(
      `--config ${path}: the top level must be ${yaml ? 'a mapping' : 'a JSON object'}`,
    );
  }
  return value as Record<string, unknown>;
}

/** The `yaml` package, loaded only for a YAML --config (a command's start does not pay for it otherwise). */
function parseYaml(text: string): unknown {
  const { parse } = createRequire(import.meta.url)('yaml') as { parse: (source: string) => unknown };
  return parse(text);
}

/** One config-file value, checked against its flag's spec; wrong types name the key. */
function convertFileValue(spec: OptionSpec, key: string, value: unknown, path: string): OptionValue {
  const wrong = (expected: string): UsageError =>
    new UsageError(`--config ${path}: "${key}" must be ${expected} (got ${JSON.stringify(value)})`);
  switch (spec.type) {
    case 'boolean':
      if (typeof value !== 'boolean') throw wrong('true or false');
      return value;
    case 'list':
      if (typeof value === 'string')
        return value
          .split(',')
          .map((v) => v.trim())
          .filter((v) => v !== '');
      if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number'))
        return value.map(String);
      throw wrong('a list of strings');
    case 'number':
    case 'integer': {
      const number = value === 'inf' ? Number.POSITIVE_INFINITY : value;
      if (typeof number !== 'number' || Number.isNaN(number)) throw wrong('a number');
      if (spec.type === 'integer' && !Number.isInteger(number)) throw wrong('a whole number');
      if (spec.min !== undefined && number < spec.min) throw wrong(`at least ${spec.min}`);
      if (spec.max !== undefined && number > spec.max) throw wrong(`at most ${spec.max}`);
      return number;
    }
    case 'string': {
      // vLLM's YAML config: a mapping under a JSON-valued flag is its JSON, a number is its text.
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return JSON.stringify(value);
      if (typeof value === 'number') return String(value);
      if (typeof value !== 'string') throw wrong('a string');
      if (spec.choices !== undefined && !spec.choices.includes(value))
        throw new UsageError(
          `--config ${path}: "${key}" must be one of ${spec.choices.join(', ')} (got ${JSON.stringify(value)}).${didYouMean(value, spec.choices)}`,
        );
      return value;
    }
  }
}

/**
 * The command line's values with the `--config` file's filled in wherever the flag was not typed. Every key is a
 * flag name with '_' or '-'; unknown keys and wrong types are usage errors that name the key, never ignored.
 */
export function withConfigFile<Specs extends readonly OptionSpec[]>(
  commandLine: ParsedCommandLine<OptionValues<Specs>>,
  specs: Specs,
  configFlag = 'config',
): OptionValues<Specs> {
  const values: Record<string, OptionValue> = { ...commandLine.options };
  const path = values[configFlag];
  if (typeof path !== 'string') return commandLine.options;
  for (const [key, value] of Object.entries(readConfig(path))) {
    const name = key.replace(/_/g, '-');
    const spec = specs.find((s) => s.name === name);
    if (spec === undefined || name === configFlag) {
      const near = nearestNames(
        name,
        specs.map((s) => s.name),
      ).map((n) => n.replace(/-/g, '_'));
      const hint = near.length > 0 ? ` Did you mean ${near.map((n) => `"${n}"`).join(' or ')}?` : '';
      throw new UsageError(`--config ${path}: unknown key "${key}".${hint}`);
    }
    if (commandLine.given.has(name) || value === null) continue;
    values[name] = checked(spec, convertFileValue(spec, key, value, path));
  }
  // Each file value was converted by its own spec, as the flags were.
  return values as OptionValues<Specs>;
}

// ---- --help and the docs' tables -------------------------------------------------------------------------------

/** A default as a user types it: `inf`, not `Infinity`. */
function defaultText(value: string | number | boolean): string {
  return value === Number.POSITIVE_INFINITY ? 'inf' : String(value);
}

/** The flag column of one spec: `-h, --help`, `--port PORT`. */
export function flagText(spec: OptionSpec): string {
  const value = spec.type === 'boolean' ? '' : ` ${spec.valueName ?? spec.type.toUpperCase()}`;
  return `${spec.short ? `-${spec.short}, ` : ''}--${spec.name}${value}`;
}

/** The help line of one spec with its choices, default and environment variable. */
export function helpText(spec: OptionSpec): string {
  const extras: string[] = [];
  if (spec.choices) extras.push(`one of: ${spec.choices.join(', ')}`);
  if (spec.default !== undefined && spec.default !== false)
    extras.push(`default: ${defaultText(spec.default)}`);
  if (spec.env) extras.push(`env: ${spec.env}`);
  // A help text that already ends in parentheses takes the extras inside them: "(0 = never; default: 0)".
  if (extras.length === 0) return spec.help;
  return spec.help.endsWith(')')
    ? `${spec.help.slice(0, -1)}; ${extras.join('; ')})`
    : `${spec.help} (${extras.join('; ')})`;
}

export function formatOptionsHelp(specs: readonly OptionSpec[]): string {
  const rows = specs.map((spec) => ({ flag: flagText(spec), text: helpText(spec) }));
  const width = Math.min(34, Math.max(...rows.map((r) => r.flag.length), 0) + 2);
  return rows
    .map(({ flag, text }) => {
      const pad = flag.length + 2 > width ? `\n${' '.repeat(width + 2)}` : ' '.repeat(width - flag.length);
      return `  ${flag}${pad}${text}`;
    })
    .join('\n');
}

/** A Markdown table of the specs (flag, config key, help with its default): the docs' reference. */
export function markdownOptionTable(specs: readonly OptionSpec[]): string {
  const cell = (text: string): string => text.replace(/\|/g, '\\|');
  const rows = specs.map(
    // `config` names the file itself: no file holds it.
    (spec) =>
      `| \`${flagText(spec)}\` | ${spec.name === 'config' ? '' : `\`${configKey(spec)}\``} | ${cell(helpText(spec))} |`,
  );
  return ['| Flag | Config key | What it does |', '| --- | --- | --- |', ...rows].join('\n');
}

// ---- nested config documents -----------------------------------------------------------------------------------

/**
 * What one field of a nested config document holds: a `number` is finite and at least 0; a section is an object
 * of its own fields; a list's and a map's values are each its `item`; `any` is checked by its `check` alone.
 */
export type FieldType = 'string' | 'boolean' | 'number' | 'section' | 'list' | 'map' | 'any';

export interface ConfigField {
  readonly key: string;
  readonly type: FieldType;
  readonly help: string;
  /** The value when the document has none, as the docs state it; fields with no value of their own have none. */
  readonly default?: string | number | boolean;
  /** What the message says when the field is absent ("is missing ..."); absent, the field is optional. */
  readonly required?: string;
  /** A section's fields (for `any`, those of a value that is an object). */
  readonly fields?: readonly ConfigField[];
  /** Each value of a list or a map. */
  readonly item?: ConfigField;
  /** How a section, list or map of the wrong type is described: "must be <shape>". */
  readonly shape?: string;
  /** A check beyond the type: what follows "<field>" in the message when the value will not do, else undefined. */
  readonly check?: (value: never) => string | undefined;
}

/**
 * A field that carries, in its type only, the type of its value (`V`) and whether the document must hold it
 * (`R`): what the constructors below return, so that a document's values are typed from its schema (DocValues).
 */
export interface Field<K extends string = string, V = unknown, R extends boolean = boolean>
  extends ConfigField {
  readonly key: K;
  readonly value?: V;
  readonly mustHave?: R;
}

type FieldOptions = Pick<ConfigField, 'default' | 'check' | 'shape'>;

/** The typed values of a section's fields: a required field always there, the others optional. */
export type DocValues<F extends readonly Field[]> = {
  readonly [X in F[number] as X extends Field<infer K, unknown, true> ? K : never]: NonNullable<X['value']>;
} & {
  readonly [X in F[number] as X extends Field<infer K, unknown, false> ? K : never]?: NonNullable<X['value']>;
};

/** The constructors, one per type: the value's type follows from which one made the field. */
function made<K extends string, V>(key: K, type: FieldType, help: string, more: object): Field<K, V, false> {
  return { key, type, help, ...more };
}
export const stringField = <K extends string>(key: K, help: string, options: FieldOptions = {}) =>
  made<K, string>(key, 'string', help, options);
export const booleanField = <K extends string>(key: K, help: string, options: FieldOptions = {}) =>
  made<K, boolean>(key, 'boolean', help, options);
export const numberField = <K extends string>(key: K, help: string, options: FieldOptions = {}) =>
  made<K, number>(key, 'number', help, options);
export const sectionField = <K extends string, const F extends readonly Field[]>(
  key: K,
  help: string,
  fields: F,
  options: FieldOptions = {},
) => made<K, DocValues<F>>(key, 'section', help, { ...options, fields });
export const listField = <K extends string, I extends Field>(
  key: K,
  help: string,
  item: I,
  options: FieldOptions = {},
) => made<K, readonly NonNullable<I['value']>[]>(key, 'list', help, { ...options, item });
export const mapField = <K extends string, I extends Field>(
  key: K,
  help: string,
  item: I,
  options: FieldOptions = {},
) => made<K, Readonly<Record<string, NonNullable<I['value']>>>>(key, 'map', help, { ...options, item });
/** A value its check alone describes (a union, a number with a message of its own): its type given, `V`. */
export const checkedField =
  <V>() =>
  <K extends string>(
    key: K,
    help: string,
    check: (value: unknown) => string | undefined,
    options: FieldOptions & Pick<ConfigField, 'fields' | 'item'> = {},
  ) =>
    made<K, V>(key, 'any', help, { ...options, check });
/** The field, which the document must hold: `message` says so when it does not. */
export function required<K extends string, V>(field: Field<K, V, false>, message: string): Field<K, V, true> {
  return { ...field, required: message, mustHave: true };
}

/** A document's field is refused with its path: `config upstreams[1].timeouts.idleMs must be ...`. */
function refuseField(path: string, message: string): never {
  throw new UserFacingError(`config ${path} ${message}`);
}

/** Keys a section does not know, refused with the one meant (same letters first, then the nearest). */
function checkKnownKeys(value: Record<string, unknown>, fields: readonly ConfigField[], path: string): void {
  const known = fields.map((f) => f.key);
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const sameLetters = known.filter((k) => k.toLowerCase() === key.toLowerCase());
    const near = sameLetters.length > 0 ? sameLetters : nearestNames(key, known);
    const hint = near.length > 0 ? ` (did you mean '${near[0]}'?)` : ` (known: ${known.join(', ')})`;
    refuseField(path === '' ? key : `${path}.${key}`, `is not a known setting${hint}`);
  }
}

/** The type's own message for a value of another type, else undefined. */
function typeProblem(field: ConfigField, value: unknown): string | undefined {
  const got = `(got ${JSON.stringify(value)})`;
  switch (field.type) {
    case 'string':
      if (typeof value !== 'string') return `must be a string ${got}`;
      return value === '' ? 'must not be empty' : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `must be a boolean ${got}`;
    case 'number':
      if (typeof value !== 'number') return `must be a number ${got}`;
      return Number.isFinite(value) && value >= 0 ? undefined : `must be a number >= 0 ${got}`;
    case 'section':
    case 'map':
      return isJsonObject(value) ? undefined : `must be ${field.shape ?? 'an object'}`;
    case 'list':
      return Array.isArray(value) ? undefined : `must be ${field.shape ?? 'an array'}`;
    case 'any':
      return undefined;
  }
}

/** Checks one field's value at `path` (and every field under it); the first problem is refused, naming it. */
export function checkField(field: ConfigField, value: unknown, path: string): void {
  if (value === undefined) {
    if (field.required !== undefined) refuseField(path, field.required);
    return;
  }
  const problem =
    typeProblem(field, value) ??
    (field.check as ((value: unknown) => string | undefined) | undefined)?.(value);
  if (problem !== undefined) refuseField(path, problem);
  if (field.fields !== undefined && isJsonObject(value)) {
    checkKnownKeys(value, field.fields, path);
    for (const inner of field.fields)
      checkField(inner, value[inner.key], path === '' ? inner.key : `${path}.${inner.key}`);
  }
  const item = field.item;
  if (item === undefined) return;
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      checkField(item, v, `${path}[${i}]`);
    });
  } else if (isJsonObject(value))
    for (const [key, v] of Object.entries(value)) checkField(item, v, `${path}.${key}`);
}

// ---- time text ----
// Times as people write them on a command line or in a config file: `500ms`, `2s`, `10m`, `1h`, or a bare number
// in the unit the caller names (ms for a latency threshold, s for --duration). One reader for both, so `2s` means
// the same wherever it is typed.

const MS_PER_UNIT = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

export type TimeUnit = keyof typeof MS_PER_UNIT;

/** How the accepted forms read in an error message. */
export const TIME_FORMS = 'a number with ms, s, m or h (500ms, 2s, 10m)';

/** `text` in milliseconds, or undefined when it is not a non-negative number with an optional unit. */
export function parseTimeMs(text: string, bareUnit: TimeUnit): number | undefined {
  const match = /^\s*(\d+(?:\.\d*)?|\.\d+)\s*(ms|s|m|h)?\s*$/i.exec(text);
  if (match === null) return undefined;
  const unit = (match[2]?.toLowerCase() ?? bareUnit) as TimeUnit;
  return Number(match[1]) * MS_PER_UNIT[unit];
}
