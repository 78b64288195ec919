// Splits a top-level JSON array into its elements' byte ranges without ever holding the whole document.
//
// ShareGPT_V3_unfiltered_cleaned_split.json is ~670 MB: larger than the longest string V8 can hold, so
// `JSON.parse(readFileSync(...))` is impossible. This scanner walks the bytes as they stream in, tracking only
// what it needs to find where each element ends (string/escape state and bracket depth). Bytes are safe to scan
// without decoding: in UTF-8 every byte of a multi-byte character is >= 0x80, so it can never be mistaken for
// `"`, `\`, `{`, `}`, `[`, `]` or `,`. Each element is then handed over alone, as bytes, for the caller to parse.
//
// Memory bound: one read chunk plus the bytes of the element being scanned. An element bigger than
// `maxElementBytes` is not kept: its bytes are dropped as they arrive and it is reported as oversized.

import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COMMA,
  isJsonSpace,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from '../../src/shared/json-bytes.js';

/** One element of the top-level array: its bytes, or why they could not be kept. */
export type ArrayElement =
  | { kind: 'element'; index: number; start: number; end: number; bytes: Buffer }
  | { kind: 'broken'; index: number; start: number; end: number; reason: string };

/** A problem with the array as a whole (not with one element); scanning goes on where it can. */
export interface SplitterNotice {
  offset: number;
  message: string;
}

export interface JsonArraySplitterOptions {
  /** Elements larger than this are skipped and reported (default 64 MiB). */
  maxElementBytes?: number;
  /** Called for structural oddities between elements (missing comma, text after the closing bracket). */
  onNotice?: (notice: SplitterNotice) => void;
}

export const DEFAULT_MAX_ELEMENT_BYTES = 64 * 1024 * 1024;

/** Raised when the document is not a JSON array at all: nothing sensible can be read from it. */
export class NotAJsonArrayError extends Error {
  override readonly name = 'NotAJsonArrayError';
}

type Phase = 'before-array' | 'between' | 'in-element' | 'after-array';

/**
 * Yields the elements of the top-level JSON array read from `chunks`, in order. Byte offsets (`start`
 * inclusive, `end` exclusive) are positions in the whole stream, so a caller can read an element again later
 * with a positioned read.
 */
export async function* splitJsonArray(
  chunks: AsyncIterable<Buffer | Uint8Array>,
  options: JsonArraySplitterOptions = {},
): AsyncGenerator<ArrayElement> {
  const maxElementBytes = options.maxElementBytes ?? DEFAULT_MAX_ELEMENT_BYTES;
  const notify = options.onNotice ?? (() => {});

  let phase: Phase = 'before-array';
  let position = 0; // stream offset of chunk[0]
  let bomBytesLeft = 0; // a UTF-8 byte order mark (EF BB BF) may open the file, possibly split across reads
  let expectComma = false; // true right after an element, until a comma is seen
  let index = 0;

  // State of the element being scanned.
  let depth = 0;
  let inString = false;
  let escaped = false;
  let scalar = false; // a top-level number/true/false/null: ends at a delimiter, not a bracket
  let elementStart = 0;
  let pieces: Buffer[] = [];
  let keptBytes = 0;
  let oversized = false;

  const finish = (endOffset: number): ArrayElement => {
    const start = elementStart;
    const current = index++;
    const result: ArrayElement = oversized
      ? {
          kind: 'broken',
          index: current,
          start,
          end: endOffset,
          reason: `element of ${endOffset - start} bytes is larger than the ${maxElementBytes}-byte limit`,
        }
      : { kind: 'element', index: current, start, end: endOffset, bytes: Buffer.concat(pieces, keptBytes) };
    pieces = [];
    keptBytes = 0;
    oversized = false;
    phase = 'between';
    expectComma = true;
    return result;
  };

  const keep = (chunk: Buffer, from: number, to: number): void => {
    if (oversized || to <= from) return;
    if (keptBytes + (to - from) > maxElementBytes) {
      oversized = true;
      pieces = [];
      keptBytes = 0;
      return;
    }
    pieces.push(chunk.subarray(from, to));
    keptBytes += to - from;
  };

  for await (const raw of chunks) {
    const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    let i = 0;
    let pieceStart = 0; // where the current element's bytes begin within this chunk
    const length = chunk.length;

    while (i < length) {
      if (phase === 'in-element') {
        // Hot loop: most of a ShareGPT file is string content.
        if (inString) {
          for (; i < length; i++) {
            const byte = chunk[i] as number;
            if (escaped) escaped = false;
            else if (byte === BACKSLASH) escaped = true;
            else if (byte === QUOTE) {
              inString = false;
              i++;
              break;
            }
          }
          if (!inString && depth === 0 && !scalar) {
            // A top-level string element just closed.
            keep(chunk, pieceStart, i);
            yield finish(position + i);
          }
          continue;
        }
        const byte = chunk[i] as number;
        if (scalar) {
          if (byte === COMMA || byte === CLOSE_BRACKET || isJsonSpace(byte)) {
            scalar = false;
            keep(chunk, pieceStart, i);
            yield finish(position + i);
            continue; // the delimiter is handled in the 'between' phase
          }
          i++;
          continue;
        }
        if (byte === QUOTE) inString = true;
        else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
        else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
          depth--;
          if (depth === 0) {
            i++;
            keep(chunk, pieceStart, i);
            yield finish(position + i);
            continue;
          }
        }
        i++;
        continue;
      }

      const byte = chunk[i] as number;
      if (phase === 'before-array') {
        if (position + i === 0 && byte === 0xef) bomBytesLeft = 3;
        if (bomBytesLeft > 0) {
          bomBytesLeft--;
          i++;
          continue;
        }
        if (isJsonSpace(byte)) {
          i++;
          continue;
        }
        if (byte !== OPEN_BRACKET) {
          throw new NotAJsonArrayError(
            `expected the file to start with '[' (a JSON array) but found ${JSON.stringify(String.fromCharCode(byte))} at byte ${position + i}`,
          );
        }
        phase = 'between';
        expectComma = false;
        i++;
        continue;
      }

      if (phase === 'after-array') {
        if (!isJsonSpace(byte)) {
          notify({ offset: position + i, message: 'text after the closing bracket was ignored' });
          return;
        }
        i++;
        continue;
      }

      // phase === 'between'
      if (isJsonSpace(byte)) {
        i++;
        continue;
      }
      if (byte === COMMA) {
        if (!expectComma) notify({ offset: position + i, message: 'extra comma ignored' });
        expectComma = false;
        i++;
        continue;
      }
      if (byte === CLOSE_BRACKET) {
        phase = 'after-array';
        i++;
        continue;
      }
      if (expectComma) notify({ offset: position + i, message: "missing ',' between elements" });
      // An element starts here.
      phase = 'in-element';
      elementStart = position + i;
      pieceStart = i;
      depth = 0;
      escaped = false;
      inString = false;
      scalar = false;
      if (byte === QUOTE) inString = true;
      else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth = 1;
      else scalar = true;
      i++;
    }

    if (phase === 'in-element') keep(chunk, pieceStart, length);
    position += length;
  }

  if (phase === 'in-element') {
    const start = elementStart;
    yield {
      kind: 'broken',
      index: index++,
      start,
      end: position,
      reason: 'unterminated element at end of file (truncated download?)',
    };
  } else if (phase === 'before-array') {
    throw new NotAJsonArrayError('the file is empty: expected a JSON array');
  } else if (phase === 'between') {
    notify({ offset: position, message: "missing closing ']' at end of file (truncated download?)" });
  }
}
