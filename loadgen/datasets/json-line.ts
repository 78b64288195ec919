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
