// Text that came from a client (a model name, a path) and goes to a terminal or a metrics page: its control
// characters are written as `\uXXXX` escapes, so an ESC or BEL cannot retitle or clear an operator's terminal and a
// CR or NUL cannot break a line of the exposition format. C0 (U+0000-U+001F), DEL and C1 (U+007F-U+009F, where
// U+009B is a one-byte CSI for some terminals) and the Unicode line and paragraph separators are escaped; every
// other character passes as it is.

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

export function hasControlCharacters(text: string): boolean {
  CONTROL.lastIndex = 0;
  return CONTROL.test(text);
}

export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
