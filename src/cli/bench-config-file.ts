// --config bench_config.json: the file the article tells people to keep (keys like base_url, api_key_env,
// num_prompts), or a YAML file (`.yaml`, `.yml`) as `vllm bench serve --config` takes. Every key is a flag name
// with '_' or '-', so any flag can live in the file; an object under a JSON-valued flag (extra_body) is that
// flag's JSON, as vLLM turns it into one. Flags typed on the command line win. Unknown keys and wrong types are
// errors that name the key, never silently ignored: usage errors (exit 2) like the flags they stand for, while a
// file that cannot be read or parsed is a failure (exit 1).

import { createRequire } from 'node:module';
import { fileErrorReason } from '../shared/file-error.js';
import { parseJsonText } from '../shared/json-object.js';
import { nearestNames } from '../shared/nearest-names.js';
import { readRegularFileSync } from '../shared/regular-file.js';
import { UsageError } from '../shared/usage-error.js';
import { UserFacingError } from '../shared/user-facing-error.js';
import {
  didYouMean,
  type OptionSpec,
  type OptionValue,
  type ParsedCommandLine,
  type ParsedOptions,
} from './options.js';

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

/** The `yaml` package, loaded only for a YAML --config (bench's start does not pay for it otherwise). */
function parseYaml(text: string): unknown {
  const { parse } = createRequire(import.meta.url)('yaml') as { parse: (source: string) => unknown };
  return parse(text);
}

function convert(spec: OptionSpec, key: string, value: unknown, path: string): OptionValue {
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

/** The command line's options with the file's values filled in wherever the flag was not typed. */
export function withConfigFile(commandLine: ParsedCommandLine, specs: readonly OptionSpec[]): ParsedOptions {
  const path = commandLine.options['config'];
  if (typeof path !== 'string') return commandLine.options;
  const merged: ParsedOptions = { ...commandLine.options };
  for (const [key, value] of Object.entries(readConfig(path))) {
    const name = key.replace(/_/g, '-');
    const spec = specs.find((s) => s.name === name);
    if (spec === undefined || name === 'config') {
      const near = nearestNames(
        name,
        specs.map((s) => s.name),
      ).map((n) => n.replace(/-/g, '_'));
      const hint = near.length > 0 ? ` Did you mean ${near.map((n) => `"${n}"`).join(' or ')}?` : '';
      throw new UsageError(`--config ${path}: unknown key "${key}".${hint}`);
    }
    if (commandLine.given.has(name) || value === null) continue;
    merged[name] = convert(spec, key, value, path);
  }
  return merged;
}
