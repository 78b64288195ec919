// Narrowing of parsed JSON without `any`: upstream bodies are untrusted and any field may be missing or mistyped.

/** A parsed JSON object whose fields are not yet checked. */
export type JsonObject = { readonly [key: string]: unknown };

export function isJsonObject(value: unknown): value is JsonObject {
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
