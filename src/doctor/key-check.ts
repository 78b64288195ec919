// Step 1 of the article's routine: is there a usable key? The usual failures are an unset or empty variable, the
// string "None" (what old vLLM benchmark scripts sent as "Bearer None"), and stray quotes or whitespace pasted
// with the key.
import { nearestNames } from '../shared/nearest-names.js';
import { type CheckResult, check } from './check.js';

export interface KeySource {
  /** Name of the variable the key is read from (`--api-key-env`, or OPENAI_API_KEY by default). */
  readonly variable: string | undefined;
  /** The key given on the command line (`--api-key`). */
  readonly flagValue: string | undefined;
}

const TITLE = 'API key';
/** Variables that may hold an API key, when the one named is not set. */
const KEY_VARIABLE = /(_API_KEY|_KEY|_TOKEN)$/;

/** A set variable holding a key, the closest by name to `wanted`, which is not set (or the only `*_API_KEY`). */
export function keyVariableInstead(env: NodeJS.ProcessEnv, wanted: string): string | undefined {
  const set = Object.keys(env).filter(
    (name) => KEY_VARIABLE.test(name) && (env[name] ?? '').trim() !== '' && name !== wanted,
  );
  const near = nearestNames(wanted, set)[0];
  if (near !== undefined) return near;
  const apiKeys = set.filter((name) => name.endsWith('_API_KEY'));
  return apiKeys.length === 1 ? apiKeys[0] : undefined;
}
const PLACEHOLDERS = new Set(['none', 'null', 'undefined', 'your-key', 'sk-xxx', 'sk-你的key']);

function problemWith(value: string): string | undefined {
  if (value === '') return 'is empty';
  if (PLACEHOLDERS.has(value.trim().toLowerCase())) return `is the placeholder "${value.trim()}"`;
  if (value !== value.trim()) return 'has whitespace around it';
  if (/^["'].*["']$/.test(value)) return 'is wrapped in quotes';
  return undefined;
}

/** The key to use, and the check's verdict on it. */
export function checkKey(
  source: KeySource,
  env: NodeJS.ProcessEnv,
): { key: string | undefined; result: CheckResult } {
  if (source.flagValue !== undefined) {
    const problem = problemWith(source.flagValue);
    return problem
      ? {
          key: undefined,
          result: check(
            'key',
            TITLE,
            'fail',
            `the key given with --api-key ${problem}`,
            'pass the key exactly as the provider issued it',
          ),
        }
      : {
          key: source.flagValue,
          result: check('key', TITLE, 'pass', 'given with --api-key (never printed)'),
        };
  }
  const variable = source.variable ?? 'OPENAI_API_KEY';
  const value = env[variable];
  if (value === undefined) {
    if (source.variable === undefined) {
      // A key exported under another name (the article's TAOTOKEN_API_KEY) is not sent unless named: say so.
      const other = keyVariableInstead(env, variable);
      const detail =
        other === undefined
          ? 'no key given and OPENAI_API_KEY is unset'
          : `no key given and OPENAI_API_KEY is unset; ${other} is set, but only a variable named with --api-key-env is read`;
      const fix =
        other === undefined
          ? 'fine for a local vLLM started without --api-key; for a hosted endpoint: export OPENAI_API_KEY=<key> or pass --api-key-env VAR'
          : `pass --api-key-env ${other} to send it (none is needed for a local vLLM started without --api-key)`;
      return { key: undefined, result: check('key', TITLE, 'warn', detail, fix) };
    }
    return {
      key: undefined,
      result: check(
        'key',
        TITLE,
        'fail',
        `${variable} is not set in this shell`,
        `export ${variable}=<your key> (in the same shell that runs the benchmark)`,
      ),
    };
  }
  const problem = problemWith(value);
  if (problem) {
    const fix = `export ${variable}=<your key> without quotes or spaces; a client would send "Authorization: Bearer ${value.trim() === '' ? '' : '...'}" and get 401`;
    return { key: undefined, result: check('key', TITLE, 'fail', `${variable} ${problem}`, fix) };
  }
  return {
    key: value,
    result: check('key', TITLE, 'pass', `${variable} is set (${value.length} characters, never printed)`),
  };
}
