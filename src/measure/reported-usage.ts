// The one gate every upstream-reported `usage` object passes before any count in it is read, streamed or not, in
// every protocol, for the gateway and the load generator alike: the token counts feed the token counters, the cost
// and the records, and an upstream once reported `prompt_tokens: 1e12` and `completion_tokens: 1e300`, recorded
// `ok`, priced, and later taken by `trace export` as a prompt of 1e12 tokens (out of memory). A usage holding a
// count no answer can have is not read at all, and the reason is kept for the record: the request's counts are then
// what they are when an upstream reports no usage (the built-in estimate, or bench's tokenizer).

import { isJsonObject, type JsonObject } from '../shared/json-object.js';

/**
 * Most tokens an upstream may report for one count: 10,000,000, several times the longest context a model offers
 * today (about 2 million tokens) and far past any answer. No tokenmeter part knows each model's context, so this
 * ceiling is the one bound (docs/metrics.md, "Reported counts").
 */
export const MAX_REPORTED_TOKENS = 10_000_000;

/** Usage objects nest their details one level (`prompt_tokens_details.cached_tokens`); two levels are read. */
const MAX_DEPTH = 2;

/** Why a token count is not one, or undefined when it is a whole number from 0 to the ceiling. */
export function tokenCountProblem(value: number): string | undefined {
  if (!Number.isFinite(value)) return 'not a finite number';
  if (!Number.isInteger(value)) return 'not a whole number';
  if (value < 0) return 'negative';
  if (value > MAX_REPORTED_TOKENS)
    return `past ${MAX_REPORTED_TOKENS.toLocaleString('en-US')} tokens, more than any model's context`;
  return undefined;
}

function firstProblem(object: JsonObject, path: string, depth: number): string | undefined {
  for (const [key, value] of Object.entries(object)) {
    const name = path === '' ? key : `${path}.${key}`;
    // Only token counts: a usage may carry other numbers (a hosted gateway's `cost` in dollars, tool call counts).
    if (typeof value === 'number' && key.endsWith('tokens')) {
      const problem = tokenCountProblem(value);
      if (problem !== undefined) return `usage.${name} is ${value} (${problem})`;
    } else if (isJsonObject(value) && depth < MAX_DEPTH) {
      const problem = firstProblem(value, name, depth + 1);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

/**
 * `usage` as an answer or event carries it: the object when every number in it is a plausible count, `{ implausible }`
 * with the reason when one is not, undefined when there is no usage object.
 */
export function plausibleUsage(
  usage: unknown,
): { readonly usage: JsonObject } | { readonly implausible: string } | undefined {
  if (!isJsonObject(usage)) return undefined;
  const problem = firstProblem(usage, '', 1);
  return problem === undefined ? { usage } : { implausible: `implausible usage ignored: ${problem}` };
}
