// Removes chosen events from a byte stream while every other byte passes through unchanged.
//
// Used by the gateway when it added `stream_options.include_usage` to a request on its own: the usage-only chunk
// that this provokes must not reach a client that never asked for it. Whether an event is to be removed is known
// only once the whole event has arrived, so the bytes of the event being assembled are held back until it is
// dispatched, then forwarded or dropped. An SSE client acts on an event only at its closing blank line, so holding
// a partial event back changes nothing a client can observe; comments, blank lines and complete events are
// forwarded as soon as they arrive.
//
// The remover does not parse: it is driven by an SseParser that sees the same bytes (see stream-meter.ts).
//   parser.push(chunk)                     // the parser's callback calls remover.remove(event) for unwanted events
//   forward(remover.take(chunk, parser.pendingEventStart))
//   ... at the end: forward(remover.flush())

import type { SseEvent } from './sse-parser.js';

const LF = 0x0a;
const CR = 0x0d;
const NOTHING_HELD = -1;
const EMPTY = Buffer.alloc(0);

export class SseEventRemover {
  // Bytes held back, as views of the chunks they came in; #heldStart is the stream offset of the first one.
  #held: Uint8Array[] = [];
  #heldStart = 0;
  // Stream offset of the next chunk's first byte.
  #offset = 0;
  // [start, end) stream ranges to drop, in stream order, registered while the parser handled the current chunk.
  #drops: number[] = [];
  // A removed event ended with a CR at the end of a chunk: an LF opening the next chunk is the rest of its CRLF.
  #dropLeadingLf = false;

  /** Bytes currently held back. */
  get heldBytes(): number {
    let total = 0;
    for (const piece of this.#held) total += piece.length;
    return total;
  }

  /** Marks a dispatched event for removal. Call it while the parser handles the chunk that completed the event. */
  remove(event: SseEvent): void {
    this.#drops.push(event.startByte, event.endByte);
  }

  /**
   * Returns the bytes to forward after the parser has handled `chunk`. `holdFrom` is the parser's
   * pendingEventStart: bytes from there on belong to an event not yet complete and are held back.
   * Returns `chunk` itself (as a Buffer view, no copy) when nothing is held or removed.
   */
  take(chunk: Uint8Array, holdFrom: number): Buffer {
    const chunkStart = this.#offset;
    const windowEnd = chunkStart + chunk.length;
    this.#offset = windowEnd;

    if (this.#dropLeadingLf && chunk.length > 0) {
      this.#dropLeadingLf = false;
      if (chunk[0] === LF) this.#drops.unshift(chunkStart, chunkStart + 1);
    }

    const windowStart = this.#held.length > 0 ? this.#heldStart : chunkStart;
    const releaseEnd = holdFrom === NOTHING_HELD ? windowEnd : Math.max(holdFrom, windowStart);
    const drops = this.#drops;

    if (drops.length === 0) {
      if (this.#held.length === 0 && releaseEnd === windowEnd) return asBuffer(chunk);
      if (releaseEnd === windowStart) {
        if (this.#held.length === 0) this.#heldStart = chunkStart;
        if (chunk.length > 0) this.#held.push(chunk);
        return EMPTY;
      }
    }

    const pieces = this.#held.length > 0 ? [...this.#held, chunk] : [chunk];
    this.#includeLfAfterCr(pieces, windowStart, windowEnd);
    const out = copyKept(pieces, windowStart, releaseEnd, drops);
    this.#drops = [];
    this.#held = viewsFrom(pieces, windowStart, releaseEnd);
    this.#heldStart = releaseEnd;
    return out;
  }

  // An event's range stops at the CR of a closing CRLF (see SseEvent.endByte); its LF goes with it, whether it is
  // in this chunk or opens the next one.
  #includeLfAfterCr(pieces: readonly Uint8Array[], piecesStart: number, windowEnd: number): void {
    const drops = this.#drops;
    for (let i = 1; i < drops.length; i += 2) {
      const end = drops[i] ?? 0;
      if (byteAt(pieces, piecesStart, end - 1) !== CR) continue;
      if (end === windowEnd) this.#dropLeadingLf = true;
      else if (byteAt(pieces, piecesStart, end) === LF) drops[i] = end + 1;
    }
  }

  /** Returns every byte still held back: an event cut off by the end of the stream is forwarded as it came. */
  flush(): Buffer {
    if (this.#held.length === 0) return EMPTY;
    const out = Buffer.concat(this.#held);
    this.#held = [];
    this.#heldStart = this.#offset;
    return out;
  }
}

function byteAt(pieces: readonly Uint8Array[], piecesStart: number, offset: number): number | undefined {
  let pieceStart = piecesStart;
  for (const piece of pieces) {
    if (offset < pieceStart + piece.length) return piece[offset - pieceStart];
    pieceStart += piece.length;
  }
  return undefined;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

// Copies the bytes of [from, to) not inside any drop range. `pieces` are consecutive, the first starting at `from`.
function copyKept(pieces: readonly Uint8Array[], from: number, to: number, drops: readonly number[]): Buffer {
  let dropped = 0;
  for (let i = 0; i < drops.length; i += 2) dropped += (drops[i + 1] ?? 0) - (drops[i] ?? 0);
  const out = Buffer.allocUnsafe(to - from - dropped);
  let written = 0;
  let cursor = from;
  const copy = (end: number): void => {
    if (end > cursor) written += copyRange(pieces, from, cursor, end, out, written);
  };
  for (let i = 0; i < drops.length; i += 2) {
    const dropStart = drops[i] ?? cursor;
    copy(dropStart);
    cursor = drops[i + 1] ?? dropStart;
  }
  copy(to);
  return out;
}

// Copies stream range [start, end) out of `pieces` (the first beginning at stream offset `piecesStart`).
function copyRange(
  pieces: readonly Uint8Array[],
  piecesStart: number,
  start: number,
  end: number,
  out: Buffer,
  outAt: number,
): number {
  let pieceStart = piecesStart;
  let written = 0;
  for (const piece of pieces) {
    const pieceEnd = pieceStart + piece.length;
    const from = Math.max(start, pieceStart);
    const to = Math.min(end, pieceEnd);
    if (from < to) {
      out.set(piece.subarray(from - pieceStart, to - pieceStart), outAt + written);
      written += to - from;
    }
    if (pieceEnd >= end) break;
    pieceStart = pieceEnd;
  }
  return written;
}

// Views of the part of `pieces` from stream offset `from` on (no copy).
function viewsFrom(pieces: readonly Uint8Array[], piecesStart: number, from: number): Uint8Array[] {
  const views: Uint8Array[] = [];
  let pieceStart = piecesStart;
  for (const piece of pieces) {
    const pieceEnd = pieceStart + piece.length;
    if (pieceEnd > from) views.push(from > pieceStart ? piece.subarray(from - pieceStart) : piece);
    pieceStart = pieceEnd;
  }
  return views;
}
