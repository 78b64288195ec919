// How deep a JSON text nests, found by a byte scan before anything parses it. V8's JSON.parse is iterative, so a
// body nested millions deep does not overflow: it blocks the event loop for seconds instead (every stream in
// flight then shows a gap its upstream never produced), and JSON.stringify, which recurses, throws when the body
// is re-serialized. The scan is one pass over the bytes with strings skipped by a native search for their closing
// quote, so it costs a fraction of the parse it guards (measured on the 2-core test machine: see docs/security.md).
// Request bodies nest a few levels (messages, content parts, a tool's JSON schema); MAX_JSON_DEPTH leaves ample
// room for deep schemas and stays far below where JSON.stringify's recursion gives out (about 10,000).

import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  isJsonSpace,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from './json-bytes.js';

export const MAX_JSON_DEPTH = 64;

/** True when the text opens more than `limit` objects or arrays inside one another (brackets in strings aside). */
export function jsonNestsDeeperThan(bytes: Uint8Array, limit: number): boolean {
  let depth = 0;
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const c = bytes[i] as number;
    if (c === QUOTE) {
      i = afterString(bytes, i + 1);
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
    i++;
  }
  return false;
}

/** The index after the quote that closes the string starting at `from` (an escaped quote does not); or the end. */
function afterString(bytes: Uint8Array, from: number): number {
  let at = from;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, at);
    if (quote < 0) return bytes.length;
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}

/** Whether the bytes start, after whitespace, like a JSON object or array (other bodies are not JSON's to judge). */
export function looksLikeJsonContainer(bytes: Uint8Array): boolean {
  for (const c of bytes) {
    if (isJsonSpace(c)) continue;
    return c === OPEN_BRACE || c === OPEN_BRACKET;
  }
  return false;
}
