// Step 1 of the article's routine: is there a usable key? The usual failures are an unset or empty variable, the
// string "None" (what old vLLM benchmark scripts sent as "Bearer None"), and stray quotes or whitespace pasted
// with the key.
import { type CheckResult, check } from './check.js';

export interface KeySource {
  /** Name of the variable the key is read from (`--api-key-env`, or OPENAI_API_KEY by default). */
  readonly variable: string | undefined;
  /** The key given on the command line (`--api-key`). */
  readonly flagValue: string | undefined;
}

const TITLE = 'API key';
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
      const detail = 'no key given and OPENAI_API_KEY is unset';
      const fix =
        'fine for a local vLLM started without --api-key; for a hosted endpoint: export OPENAI_API_KEY=<key> or pass --api-key-env VAR';
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
