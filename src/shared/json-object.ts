// JSON values and the narrowing of parsed JSON without `any`: upstream bodies, result files and config files are
// untrusted and any field may be missing or mistyped. The one place these types and the object test are defined.
// Below: a JSON line read as an object, and a value frozen throughout.

/** What JSON.parse can return, and what a result file's writers build. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonValueObject;

/** A JSON object whose fields are JSON values: a result file as read back, or a section as written. */
export type JsonValueObject = { [key: string]: JsonValue };

/** U+FEFF, the byte order mark Windows Notepad writes at the start of a UTF-8 file; JSON.parse refuses it. */
const BYTE_ORDER_MARK = '\uFEFF';

/** JSON.parse of a file's text, a leading byte order mark skipped; throws JSON.parse's SyntaxError. */
export function parseJsonText(text: string): JsonValue {
  return JSON.parse(text.startsWith(BYTE_ORDER_MARK) ? text.slice(1) : text) as JsonValue;
}

/** A parsed JSON object whose fields are not yet checked. */
export type JsonObject = { readonly [key: string]: unknown };

/** Whether `value` is a JSON object (not null, not an array); a JsonValue stays typed as one, fields included. */
export function isJsonObject(value: JsonValue | undefined): value is JsonValueObject;
export function isJsonObject(value: unknown): value is JsonObject;
export function isJsonObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses `text` as a JSON object; undefined when it is not valid JSON or not an object. */
export function parseJsonObject(text: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The value at `object[key]`; a function rather than `object['key']`, which the linter and the compiler disagree on. */
export function field(object: JsonObject, key: string): unknown {
  return object[key];
}

/** The string at `object[key]`, or '' when absent or not a string. */
export function stringField(object: JsonObject, key: string): string {
  const value = object[key];
  return typeof value === 'string' ? value : '';
}

/** The non-negative finite number at `object[key]`, or undefined. */
export function countField(object: JsonObject, key: string): number | undefined {
  const value = object[key];
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

// ---- A JSON line read as an object ----
// One line of a JSON-lines dataset or trace read as an object, or the reason it is not one, in the words a
// dataset note shows ("line 4: invalid JSON (...)"): the first check every line-based reader makes.

/** The line's object, or why it is not a JSON object. */
export function jsonObjectOfLine(text: string): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `invalid JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  return value as Record<string, unknown>;
}

// ---- Freezing a value throughout ----
// Freezes a plain value and everything it holds (objects and arrays), so that what is handed around cannot be
// changed by whoever holds it: the gateway's configuration once resolved, and each finished request's record as
// its sinks receive it. A frozen part is taken as frozen throughout, so shared parts are walked once.

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
