// Reading the JSON files that `compare` and `report` take: a result file (vLLM's --save-result keys, ours or
// vLLM's own) or a sweep summary. Every way a file can be wrong ends in one sentence that names the file and
// says what to do, never a stack trace or a bare "Unexpected token" from JSON.parse.

import {
  isJsonObject,
  type JsonValue,
  type JsonValueObject,
  parseJsonText,
} from '../../src/shared/json-object.js';
import { fileErrorReason, readRegularFile } from '../../src/shared/regular-file.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';

/** A result file once read: where it came from and its parsed keys. */
export interface LoadedResult {
  path: string;
  json: JsonValueObject;
}

/** Keys every vLLM result file has since the first version of --save-result; enough to tell one apart. */
const REQUIRED_RESULT_KEYS = ['completed', 'duration', 'request_throughput', 'output_throughput'] as const;

/** Reads and parses a JSON file; `what` names what the file should be, for the error message. */
export async function readJsonFile(path: string, what: string): Promise<JsonValue> {
  let text: string;
  try {
    text = await readRegularFile(path);
  } catch (error) {
    throw new UserFacingError(`cannot read ${what} '${path}': ${fileErrorReason(error)}`, { cause: error });
  }
  try {
    return parseJsonText(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new UserFacingError(`'${path}' is not valid JSON (${detail}); expected ${what}`, { cause: error });
  }
}

/** The required keys `json` lacks (or holds as non-numbers); empty for a result file. */
export function missingResultKeys(json: JsonValueObject): string[] {
  return REQUIRED_RESULT_KEYS.filter((key) => typeof json[key] !== 'number');
}

export function isResultJson(value: JsonValue): value is JsonValueObject {
  return isJsonObject(value) && missingResultKeys(value).length === 0;
}

/** Checks that a parsed value is a result file, naming what is missing when it is not. */
export function asResult(path: string, value: JsonValue): LoadedResult {
  if (!isJsonObject(value)) {
    throw new UserFacingError(
      `'${path}' is not a benchmark result: expected a JSON object as written by --save-result`,
    );
  }
  const missing = missingResultKeys(value);
  if (missing.length > 0) {
    throw new UserFacingError(
      `'${path}' is not a benchmark result: it has no numeric ${missing.join(', ')} ` +
        '(write one with tokenmeter bench --save-result, or vLLM benchmark_serving.py --save-result)',
    );
  }
  return { path, json: value };
}

export async function readResultFile(path: string): Promise<LoadedResult> {
  return asResult(path, await readJsonFile(path, 'a benchmark result (JSON from --save-result)'));
}
