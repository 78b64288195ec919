// A JSON request body's top-level members, found while the body arrives, chunk by chunk, without parsing it.
//
// Why not JSON.parse: the gateway reads a handful of top-level members (model, stream, stream_options, tools,
// store) of bodies up to maxBodyBytes (16 MB by default). Decoding and parsing a 16 MB body whole blocks the event
// loop for 30 ms (long chat text) to 140 ms (an array of numbers) on the 2-core test machine, and every stream in
// flight then shows a gap its upstream never produced. This scan does its work per chunk as the socket delivers
// it (64 KB at most), so no single turn of the loop holds more than one chunk's scan; strings, most of a chat
// body's bytes, are skipped by a native search for their closing quote. It also refuses a body nested deeper than
// MAX_JSON_DEPTH at the first bracket past the bound, before the rest of it is even read.
//
// What it checks is structure, not every token: brackets that match, strings that close, and at the top level
// the shape `{ "key": value, ... }` followed by nothing but whitespace. A body failing that is "not an object"
// and goes upstream as it came, as a body JSON.parse rejects always did. Literals (numbers, true, false, null)
// are not validated: a body with a bad one still has its model read, and the upstream says what is wrong.

import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  isJsonSpace,
  MAX_JSON_DEPTH,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from '../../shared/json-bytes.js';
import { ElementSpans, MAX_ARRAY_MEMBERS_TRACKED } from '../sessions/element-spans.js';
import { GatewayError } from './errors.js';

/** A socket's largest read: what one push of bytes given whole covers, as if they had arrived. */
const SCAN_SLICE_BYTES = 64 * 1024;

/** Bytes given whole (an upstream's answer read in full, a test) scanned in the slices a socket would deliver. */
export function scanWhole(bytes: Uint8Array): BodyScanner {
  const scanner = new BodyScanner();
  for (let at = 0; at < bytes.length; at += SCAN_SLICE_BYTES)
    scanner.push(bytes.subarray(at, at + SCAN_SLICE_BYTES));
  return scanner;
}

/** Where one top-level member lies in the body: its key's bytes (quotes included) and its value's. */
export interface MemberSpan {
  readonly keyStart: number;
  readonly keyEnd: number;
  readonly valueStart: number;
  readonly valueEnd: number;
}

/** A body that is one JSON object: its members in order, and where its closing brace is. */
export interface ObjectShape {
  readonly members: readonly MemberSpan[];
  readonly closeAt: number;
  /** The objects listed in array members (a conversation's messages), by member index (element-spans.ts). */
  readonly elements: ReadonlyMap<number, ElementSpans>;
}

/** Where the scan is at the top level (inside the outer object). */
enum Top {
  /** Before the outer `{`. */
  Start,
  /** After `{` or `,`: a key, or (only right after `{`) the closing brace. */
  Key,
  /** After a key: the colon. */
  Colon,
  /** After the colon: the value. */
  Value,
  /** Inside a literal value (a number, true, false, null). */
  Literal,
  /** After a value: `,` or the closing brace. */
  AfterValue,
  /** After the closing brace: whitespace only. */
  Done,
  /** JSON, but not one object (an array, say): nothing more to learn but the depth. */
  NotObject,
  /** Not a JSON object or array at all (a form upload, text): not JSON's to judge, so not scanned further. */
  NotJson,
}

export class BodyScanner {
  readonly #members: MemberSpan[] = [];
  /** Bytes scanned before the current chunk. */
  #offset = 0;
  #top = Top.Start;
  #depth = 0;
  /** The bracket kind open at each depth (1-based), to check that each closes with its own kind. */
  readonly #open = new Uint8Array(MAX_JSON_DEPTH + 1);
  #inString = false;
  /** Inside a string, the chunk ended on an odd run of backslashes: the next byte is escaped. */
  #escapePending = false;
  #keyStart = -1;
  #keyEnd = -1;
  #valueStart = -1;
  /** The end of the literal seen so far (past its last non-space byte). */
  #literalEnd = -1;
  #closeAt = -1;
  /** Whether the first byte after the outer `{` (spaces aside) was seen: `{}` closes there, `{,` does not. */
  #afterOpen = false;
  /** Per chunk, where each of STRUCTURAL occurs next (nextStructural's cache). */
  readonly #next = new Int32Array(STRUCTURAL.length);
  /** The objects of the first array members that list objects, by member index (sessions read a conversation's). */
  readonly #elements = new Map<number, ElementSpans>();
  /** Where the object being listed in an array member opened. */
  #elementStart = -1;

  /**
   * Scans one chunk (what the socket delivered: 64 KB at most, so each native search covers that much at most);
   * throws the gateway's 400 as soon as the body nests deeper than MAX_JSON_DEPTH.
   */
  push(chunk: Uint8Array): void {
    if (this.#top === Top.NotJson) return;
    const n = chunk.length;
    const next = this.#next;
    next.fill(UNKNOWN);
    let i = 0;
    while (i < n) {
      if (this.#inString) {
        i = this.#skipString(chunk, i);
        continue;
      }
      // Inside a member's value only quotes and brackets matter: jump to the next one by native searches.
      if (this.#depth >= 2 || this.#top === Top.NotObject) {
        i = nextStructural(chunk, i, next);
        if (i === n) break;
      }
      const c = chunk[i] as number;
      if (c === QUOTE) {
        this.#inString = true;
        this.#stringStarts(this.#offset + i);
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        this.#opens(c, this.#offset + i);
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        this.#closes(c, this.#offset + i);
      } else if (this.#depth <= 1 && this.#top !== Top.NotObject) {
        this.#topByte(c, this.#offset + i);
      }
      if (this.#stopped()) return;
      i++;
    }
    this.#offset += n;
  }

  /** The body's shape once every chunk was pushed: an object's members, or null for anything else. */
  finish(): ObjectShape | null {
    if (this.#inString || this.#depth !== 0 || this.#top !== Top.Done) return null;
    return { members: this.#members, closeAt: this.#closeAt, elements: this.#elements };
  }

  /** Inside a string from `from`: past its closing quote (string over), or to the chunk's end (still open). */
  #skipString(chunk: Uint8Array, from: number): number {
    let at = from;
    if (this.#escapePending) {
      this.#escapePending = false;
      at++;
    }
    for (;;) {
      const quote = chunk.indexOf(QUOTE, at);
      if (quote < 0) {
        this.#escapePending = oddBackslashRunBefore(chunk, chunk.length, at);
        return chunk.length;
      }
      if (!oddBackslashRunBefore(chunk, quote, at)) {
        this.#inString = false;
        this.#stringEnds(this.#offset + quote + 1);
        return quote + 1;
      }
      at = quote + 1;
    }
  }

  #stringStarts(at: number): void {
    if (this.#depth !== 1) {
      if (this.#top === Top.Start) this.#top = Top.NotJson;
      else if (this.#depth === 0) this.#notObject();
      return;
    }
    this.#afterOpen = true;
    if (this.#top === Top.Key) this.#keyStart = at;
    else if (this.#top === Top.Value) this.#valueStart = at;
    else this.#notObject();
  }

  #stringEnds(end: number): void {
    if (this.#depth !== 1) return;
    if (this.#top === Top.Key) {
      this.#keyEnd = end;
      this.#top = Top.Colon;
    } else if (this.#top === Top.Value) {
      this.#memberEnds(end);
    }
  }

  #opens(c: number, at: number): void {
    this.#depth++;
    if (this.#depth > MAX_JSON_DEPTH) {
      throw new GatewayError(
        'request_too_deep',
        `the JSON body nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep; send a flatter body`,
      );
    }
    this.#open[this.#depth] = c;
    if (this.#depth === 1) {
      if (this.#top === Top.Start && c === OPEN_BRACE) this.#top = Top.Key;
      else this.#notObject();
    } else if (this.#depth === 2) {
      this.#afterOpen = true;
      if (this.#top === Top.Value) this.#valueStart = at;
      else this.#notObject();
    } else if (this.#depth === 3 && c === OPEN_BRACE && this.#open[2] === OPEN_BRACKET) {
      this.#elementStart = at;
    }
  }

  #closes(c: number, at: number): void {
    const opened = this.#open[this.#depth];
    if (this.#depth === 0 || (c === CLOSE_BRACE ? opened !== OPEN_BRACE : opened !== OPEN_BRACKET)) {
      this.#notObject();
      // Unbalanced: the depth can no longer be trusted to fall, so it stays as it was (a deep body still fails).
      return;
    }
    this.#depth--;
    if (this.#depth === 1) {
      this.#memberEnds(at + 1);
    } else if (this.#depth === 0) {
      this.#objectCloses(at);
    } else if (this.#depth === 2 && this.#elementStart >= 0) {
      this.#elementEnds(at + 1);
    }
  }

  /** An object listed in an array member closed: kept for the first few such members (element-spans.ts). */
  #elementEnds(end: number): void {
    const member = this.#members.length;
    let spans = this.#elements.get(member);
    if (spans === undefined) {
      if (this.#elements.size >= MAX_ARRAY_MEMBERS_TRACKED || this.#top !== Top.Value) {
        this.#elementStart = -1;
        return;
      }
      spans = new ElementSpans();
      this.#elements.set(member, spans);
    }
    spans.add(this.#elementStart, end);
    this.#elementStart = -1;
  }

  /** The outer object's closing brace: a member may end with it, and only whitespace may follow. */
  #objectCloses(at: number): void {
    const top = this.#top;
    if (top === Top.NotObject) return;
    if (top === Top.Literal) {
      this.#memberEnds(this.#literalEnd);
    } else if (top !== Top.AfterValue && !(top === Top.Key && !this.#afterOpen)) {
      // `{"a"}`, `{"a":}`, `{"a":1,}`.
      this.#notObject();
      return;
    }
    this.#top = Top.Done;
    this.#closeAt = at;
  }

  /** Not JSON: the rest of the body is not scanned. */
  #stopped(): boolean {
    return this.#top === Top.NotJson;
  }

  /** A byte other than a quote or a bracket, at the top level of the outer object (or outside it). */
  #topByte(c: number, at: number): void {
    if (isJsonSpace(c)) return;
    switch (this.#top) {
      case Top.Colon:
        if (c === COLON) this.#top = Top.Value;
        else this.#notObject();
        return;
      case Top.Value:
        if (c === COMMA || c === COLON) {
          this.#notObject();
          return;
        }
        this.#valueStart = at;
        this.#literalEnd = at + 1;
        this.#top = Top.Literal;
        return;
      case Top.Literal:
        if (c === COMMA) {
          this.#memberEnds(this.#literalEnd);
          this.#top = Top.Key;
        } else if (c === COLON) this.#notObject();
        else this.#literalEnd = at + 1;
        return;
      case Top.AfterValue:
        if (c === COMMA) this.#top = Top.Key;
        else this.#notObject();
        return;
      case Top.NotObject:
        return;
      case Top.Start:
        this.#top = Top.NotJson;
        return;
      default:
        // Done (after the object) or Key: nothing but a quote or a bracket belongs there.
        this.#notObject();
    }
  }

  #memberEnds(valueEnd: number): void {
    if (this.#top === Top.NotObject) return;
    this.#members.push({
      keyStart: this.#keyStart,
      keyEnd: this.#keyEnd,
      valueStart: this.#valueStart,
      valueEnd,
    });
    this.#top = Top.AfterValue;
  }

  #notObject(): void {
    this.#top = Top.NotObject;
  }
}

/** The bytes that change what the scan knows inside a value: a string's start, a container's start or end. */
const STRUCTURAL = [QUOTE, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET] as const;
/** In nextStructural's cache: not searched for yet in this chunk; NONE: not in the rest of it. */
const UNKNOWN = -2;
const NONE = -1;

/**
 * The index of the first structural byte at or after `from`, or the chunk's length. Each byte's next position is
 * searched for once and kept until the scan passes it, so a chunk costs at most one native pass per byte value
 * however its structural bytes interleave (an array of numbers: five searches for the whole chunk).
 */
function nextStructural(chunk: Uint8Array, from: number, next: Int32Array): number {
  let first = chunk.length;
  for (let k = 0; k < STRUCTURAL.length; k++) {
    let at = next[k] as number;
    if (at === NONE) continue;
    if (at < from) {
      at = chunk.indexOf(STRUCTURAL[k] as number, from);
      next[k] = at;
      if (at === NONE) continue;
    }
    if (at < first) first = at;
  }
  return first;
}

/** Whether the bytes just before `end` (not before `floor`) are an odd run of backslashes. */
function oddBackslashRunBefore(chunk: Uint8Array, end: number, floor: number): boolean {
  let run = 0;
  while (end - 1 - run >= floor && chunk[end - 1 - run] === BACKSLASH) run++;
  return run % 2 === 1;
}
