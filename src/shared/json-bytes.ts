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
