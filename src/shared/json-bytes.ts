// The bytes of JSON's structure, for the scanners that read JSON without parsing it (the gateway's body scan, the
// dataset reader's streaming array splitter): one table, so no scanner spells a bracket differently.

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const COLON = 0x3a;
export const COMMA = 0x2c;

/** JSON's insignificant whitespace (RFC 8259): space, tab, line feed, carriage return. */
export function isJsonSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * The deepest nesting accepted. Request bodies nest a few levels (messages, content parts, a tool's JSON schema):
 * 64 leaves ample room for deep schemas. Past it a body is refused at the first bracket too many: V8's JSON.parse
 * is iterative, so a body nested millions deep would not overflow any parser but block whatever parses it for
 * seconds, and JSON.stringify, which recurses, gives out at about 10,000.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * True when well-formed JSON nests objects or arrays deeper than `limit`: brackets counted outside strings, for a
 * value already parsed whose text must not reach JSON.stringify's recursion (the body scan applies the same bound
 * to request bodies as they arrive).
 */
export function nestsDeeperThan(bytes: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let at = 0; at < bytes.length; at++) {
    const byte = bytes[at];
    if (inString) {
      if (byte === BACKSLASH) at++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth++;
      if (depth > limit) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}
