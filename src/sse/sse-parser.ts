// Incremental Server-Sent Events parser, fed raw bytes as they arrive from the network.
//
// Follows the WHATWG "event stream interpretation" rules: lines end in LF, CRLF or a lone CR; `data:` lines are
// joined with LF; an event is dispatched on a blank line; comment lines start with `:`; an incomplete event at the
// end of the stream is discarded. Line ends are found in the bytes (LF and CR never occur inside a multi-byte
// UTF-8 sequence), and only complete lines are decoded, so chunks may split anywhere, even inside a character.
//
// Every dispatched event also carries its byte range in the stream, so a caller can remove exactly that event's
// bytes from what it forwards (see event-remover.ts).

/** One dispatched event. */
export interface SseEvent {
  /** The `event:` field of this event; undefined when it had none (the spec's default type "message"). */
  readonly event: string | undefined;
  /** The `data:` lines joined with "\n". */
  readonly data: string;
  /** The last `id:` seen in the stream so far (the spec's "last event ID", which persists across events). */
  readonly id: string | undefined;
  /** Stream offset of the first byte of the event's first field line (comment lines before it excluded). */
  readonly startByte: number;
  /**
   * Stream offset just past the first line-end byte of the blank line that dispatched it. When that blank line
   * ended in CRLF, the LF is not included: the event is dispatched on the CR, without waiting for what follows,
   * so the range is the same however the stream was split.
   */
  readonly endByte: number;
}

export interface SseParserOptions {
  /** Largest event accepted, counted as the bytes of its field lines without line ends. Default 1 MiB. */
  readonly maxEventBytes?: number;
}

export const DEFAULT_MAX_EVENT_BYTES = 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const NO_POSITION = -1;

// Field names compared as bytes, so no string is built for a field name.
const FIELD_DATA = Uint8Array.of(0x64, 0x61, 0x74, 0x61);
const FIELD_EVENT = Uint8Array.of(0x65, 0x76, 0x65, 0x6e, 0x74);
const FIELD_ID = Uint8Array.of(0x69, 0x64);

// Non-fatal: invalid UTF-8 becomes U+FFFD, as the spec's "UTF-8 decode" does. ignoreBOM keeps the BOM visible so
// that only the one at the very start of the stream is removed (done by hand below), never one inside a line.
const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/**
 * The UTF-8 text of `bytes` from `start` to `end`. Lines are ranges of the pushed chunks, Buffers when the caller
 * pushes Buffers (undici and Node's sockets do): their own decoder then costs no view and no TextDecoder call.
 */
function utf8(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.isBuffer(bytes)
    ? bytes.toString('utf8', start, end)
    : decoder.decode(bytes.subarray(start, end));
}

export class SseParser {
  /**
   * True once an event outgrew maxEventBytes. That event is skipped (never dispatched) up to the blank line that
   * ends it, and parsing resumes with the next event, so an end marker after a big event is still seen.
   */
  overflowed = false;
  /**
   * True when end() found an incomplete event (field lines with no blank line after them), which was discarded;
   * also when the stream ended inside an oversized event being skipped.
   */
  endedMidEvent = false;
  /** Comment lines seen (keep-alive pings such as `: ping`). */
  comments = 0;
  /** The latest comment line, colon included, as its bytes (a copy): a gateway's last word before a cut is one. */
  lastComment: Uint8Array | null = null;
  /** Events dispatched. */
  events = 0;
  /** Bytes pushed so far: the stream offset of the next byte. */
  bytesSeen = 0;

  readonly #onEvent: (event: SseEvent) => void;
  readonly #maxEventBytes: number;

  // The current incomplete line, as views of the pushed chunks: joined once, when its line end arrives.
  #lineParts: Uint8Array[] = [];
  #lineBytes = 0;
  // Stream offset of the first byte of the current line (complete or not).
  #lineStart = 0;

  // The event being assembled.
  #eventBytes = 0;
  #eventStart = NO_POSITION;
  #dataLines = 0;
  #data = '';
  #type: string | undefined = undefined;
  #lastId: string | undefined = undefined;

  // A CR ended the previous chunk: an LF at the start of the next one completes that CRLF, not a new line.
  #skipLf = false;
  #atStreamStart = true;
  #ended = false;
  // Inside an oversized event: lines are passed over without being kept until the blank line that ends it.
  #skipping = false;
  // While skipping: the current, still incomplete line has bytes, so it is not the blank line.
  #skippedPartial = false;

  constructor(onEvent: (event: SseEvent) => void, options: SseParserOptions = {}) {
    this.#onEvent = onEvent;
    this.#maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  }

  /**
   * Stream offset where the event now being assembled begins (its first field line, possibly still incomplete),
   * or -1 when no event is pending. Bytes before it belong to dispatched events, comments or blank lines.
   */
  get pendingEventStart(): number {
    if (this.#eventStart !== NO_POSITION) return this.#eventStart;
    const first = this.#lineParts[0];
    if (first !== undefined && first[0] !== COLON) return this.#lineStart;
    return NO_POSITION;
  }

  /** Bytes of the event being assembled that the parser holds: never more than maxEventBytes. */
  get bufferedBytes(): number {
    return this.#eventBytes + this.#lineBytes;
  }

  /**
   * Feeds the next bytes of the stream. Events completed by them are dispatched synchronously, in order.
   * The parser keeps views of `chunk` until its last line completes: do not modify a chunk after pushing it.
   */
  push(chunk: Uint8Array): void {
    const chunkOffset = this.bytesSeen;
    this.bytesSeen += chunk.length;
    if (this.#ended || chunk.length === 0) return;

    let pos = 0;
    if (this.#skipLf) {
      this.#skipLf = false;
      if (chunk[0] === LF) {
        pos = 1;
        this.#lineStart = chunkOffset + 1;
      }
    }

    // The next LF and CR are searched natively and cached, so a stream with only one kind of line end is still
    // scanned once in total rather than once per line.
    let nextLf = chunk.indexOf(LF, pos);
    let nextCr = chunk.indexOf(CR, pos);
    while (pos < chunk.length) {
      if (nextLf !== NO_POSITION && nextLf < pos) nextLf = chunk.indexOf(LF, pos);
      if (nextCr !== NO_POSITION && nextCr < pos) nextCr = chunk.indexOf(CR, pos);
      const lineEnd =
        nextLf === NO_POSITION ? nextCr : nextCr === NO_POSITION ? nextLf : Math.min(nextLf, nextCr);

      if (lineEnd === NO_POSITION) {
        this.#holdPartialLine(chunk.subarray(pos));
        return;
      }

      let next = lineEnd + 1;
      if (chunk[lineEnd] === CR) {
        if (next === chunk.length) this.#skipLf = true;
        else if (chunk[next] === LF) next++;
      }

      if (this.#skipping) {
        const blank = lineEnd === pos && !this.#skippedPartial;
        this.#skippedPartial = false;
        if (blank) this.#skipping = false;
      } else if (this.#lineParts.length === 0) {
        // The common case: the whole line is in this chunk, read in place (no view of it is made).
        this.#processLine(chunk, pos, lineEnd, chunkOffset + lineEnd + 1);
      } else {
        const line = this.#joinLine(chunk.subarray(pos, lineEnd));
        this.#processLine(line, 0, line.length, chunkOffset + lineEnd + 1);
      }
      pos = next;
      this.#lineStart = chunkOffset + next;
    }
  }

  /**
   * Marks the end of the stream. An incomplete event is discarded, as the spec says; `endedMidEvent` records it.
   * Later pushes are ignored.
   */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#skipping || this.pendingEventStart !== NO_POSITION) this.endedMidEvent = true;
    this.#dropBuffers();
  }

  #holdPartialLine(part: Uint8Array): void {
    if (this.#skipping) {
      if (part.length > 0) this.#skippedPartial = true;
      return;
    }
    this.#lineParts.push(part);
    this.#lineBytes += part.length;
    if (this.#eventBytes + this.#lineBytes > this.#maxEventBytes) {
      this.#overflow();
      // The line being held is part of the oversized event, and not blank.
      this.#skippedPartial = true;
    }
  }

  // The whole line, when it spanned several chunks: the held parts and `tail`, joined once.
  #joinLine(tail: Uint8Array): Uint8Array {
    const line = new Uint8Array(this.#lineBytes + tail.length);
    let at = 0;
    for (const part of this.#lineParts) {
      line.set(part, at);
      at += part.length;
    }
    line.set(tail, at);
    this.#lineParts = [];
    this.#lineBytes = 0;
    return line;
  }

  // The line is bytes[from, end) (line end excluded): read where it lies, so a line costs no view object.
  #processLine(bytes: Uint8Array, from: number, end: number, endOffset: number): void {
    let start = from;
    if (this.#atStreamStart) {
      this.#atStreamStart = false;
      if (end - start >= 3 && bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf)
        start += 3;
    }

    if (start === end) {
      this.#dispatch(endOffset);
      return;
    }
    if (bytes[start] === COLON) {
      this.comments++;
      this.lastComment = bytes.slice(start, end);
      return;
    }

    this.#eventBytes += end - start;
    if (this.#eventBytes > this.#maxEventBytes) {
      this.#overflow();
      return;
    }
    if (this.#eventStart === NO_POSITION) this.#eventStart = this.#lineStart;

    let nameEnd = bytes.indexOf(COLON, start);
    let valueStart = nameEnd + 1;
    if (nameEnd === NO_POSITION || nameEnd >= end) {
      nameEnd = end;
      valueStart = end;
    } else if (valueStart < end && bytes[valueStart] === SPACE) {
      valueStart++;
    }

    if (namedBy(bytes, start, nameEnd, FIELD_DATA)) {
      const value = utf8(bytes, valueStart, end);
      this.#data = this.#dataLines === 0 ? value : `${this.#data}\n${value}`;
      this.#dataLines++;
    } else if (namedBy(bytes, start, nameEnd, FIELD_EVENT)) {
      this.#type = utf8(bytes, valueStart, end);
    } else if (namedBy(bytes, start, nameEnd, FIELD_ID)) {
      const value = utf8(bytes, valueStart, end);
      if (!value.includes('\0')) this.#lastId = value;
    }
    // `retry:` and unknown fields carry nothing a measuring proxy needs; they are ignored.
  }

  #dispatch(endOffset: number): void {
    const startByte = this.#eventStart;
    const hasData = this.#dataLines > 0;
    const event: SseEvent | undefined = hasData
      ? { event: this.#type, data: this.#data, id: this.#lastId, startByte, endByte: endOffset }
      : undefined;
    // The spec resets the data and type buffers on every blank line, dispatching only when data was present.
    this.#eventStart = NO_POSITION;
    this.#eventBytes = 0;
    this.#dataLines = 0;
    this.#data = '';
    this.#type = undefined;
    if (event !== undefined) {
      this.events++;
      this.#onEvent(event);
    }
  }

  // The event outgrew the limit: drop what was kept of it and pass over the rest of it.
  #overflow(): void {
    this.overflowed = true;
    this.#skipping = true;
    this.#skippedPartial = false;
    this.#dropBuffers();
  }

  #dropBuffers(): void {
    this.#lineParts = [];
    this.#lineBytes = 0;
    this.#eventBytes = 0;
    this.#eventStart = NO_POSITION;
    this.#dataLines = 0;
    this.#data = '';
    this.#type = undefined;
  }
}

/** Whether bytes[start, end) is the field name `name`. */
function namedBy(bytes: Uint8Array, start: number, end: number, name: Uint8Array): boolean {
  if (end - start !== name.length) return false;
  for (let i = 0; i < name.length; i++) if (bytes[start + i] !== name[i]) return false;
  return true;
}
