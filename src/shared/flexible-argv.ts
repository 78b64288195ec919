// What vLLM's FlexibleArgumentParser (vllm/utils/argparse_utils.py) accepts beyond argparse, so that a `vllm bench
// serve` command line runs here as typed: `--num_prompts` for `--num-prompts` (underscores in a flag's name), and
// dotted keys into a JSON-valued flag (`--extra-body.foo 1`, `--extra-body.a.b=x`, `--extra-body.stop+ a,b`),
// gathered into one JSON object per flag and given after the other words, so they replace a whole
// `--extra-body '{...}'` typed before them, as vLLM's do.

import type { JsonValue } from './json-object.js';

/** `--name_with_underscores[.keys][=value]`: the flag's name, up to its first '.' or '='. */
const FLAG_NAME = /^--([^.=]+)/;
/** `--flag.key.path[+][=value]`. */
const DOTTED = /^--([A-Za-z][\w-]*)\.([^=+]+)(\+?)(?:=(.*))?$/s;

type JsonObject = { [key: string]: JsonValue };

/** A dotted key's value: JSON when it parses, else the text itself; `+` makes it a list of its comma pieces. */
function dottedValue(text: string, list: boolean): JsonValue {
  if (list) return text.split(',');
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

const isObject = (v: JsonValue | undefined): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Into `target` at `path`: objects merged key by key, lists appended (`key+` given twice), else replaced. */
function setPath(target: JsonObject, path: readonly string[], value: JsonValue): void {
  const [key, ...rest] = path as [string, ...string[]];
  if (rest.length > 0) {
    const inner = target[key];
    const next: JsonObject = isObject(inner) ? inner : {};
    target[key] = next;
    setPath(next, rest, value);
    return;
  }
  const before = target[key];
  target[key] = Array.isArray(before) && Array.isArray(value) ? [...before, ...value] : value;
}

export function flexibleArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  const dotted = new Map<string, JsonObject>();
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (!word.startsWith('--')) {
      out.push(word);
      continue;
    }
    const named = word.replace(FLAG_NAME, (_, name: string) => `--${name.replace(/_/g, '-')}`);
    const match = DOTTED.exec(named);
    if (match === null) {
      out.push(named);
      continue;
    }
    const [, flag = '', keys = '', plus, inline] = match;
    // A missing value is left for the option parser to report, with the flag's name.
    const text = inline ?? argv[i + 1];
    if (text === undefined) {
      out.push(`--${flag}`);
      continue;
    }
    if (inline === undefined) i++;
    const object = dotted.get(flag) ?? {};
    dotted.set(flag, object);
    setPath(object, keys.split('.'), dottedValue(text, plus === '+'));
  }
  for (const [flag, object] of dotted) out.push(`--${flag}`, JSON.stringify(object));
  return out;
}
