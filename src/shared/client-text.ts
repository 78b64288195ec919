// Text a client chose (the path it asked for, the model it named) is written into every record and log line, of
// refused requests too: a client without a gateway key could otherwise make each 401 write its whole path (up to
// Node's 16 KiB header bound) twice, and control the gateway's disk use (200 such requests wrote 6.3 MB in 1.9 s).
// Cut to MAX_CLIENT_TEXT_BYTES of UTF-8, with a marker saying how long it was; real paths and model names are far
// shorter, so nothing a working client sends is cut.

/** The most bytes (UTF-8) of one client-chosen text kept in a record or log line. */
export const MAX_CLIENT_TEXT_BYTES = 512;

/** `text` when it fits MAX_CLIENT_TEXT_BYTES, else its first bytes and `...[cut: N bytes]`. */
export function boundedClientText(text: string): string {
  // A UTF-16 unit is at most 3 bytes of UTF-8: short text is never measured.
  if (text.length * 3 <= MAX_CLIENT_TEXT_BYTES) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= MAX_CLIENT_TEXT_BYTES) return text;
  // A character cut in the middle becomes U+FFFD, which is dropped rather than kept as a half.
  const head = bytes
    .subarray(0, MAX_CLIENT_TEXT_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${head}...[cut: ${bytes.length} bytes]`;
}
