// The gateway never hands out a key it holds. Upstream answers pass through unchanged by design, but an upstream
// that quotes the request's `Authorization` in its 401, echoes it in a header or lists it as a model would
// otherwise put the gateway's upstream key in the client's answer, the record and the log line. So every
// configured upstream key is replaced by `[redacted]` in everything the gateway passes on from an upstream answer
// (its `Bearer ` form is covered by the key itself) and in the error text the record and log line take from it
// (exchange-outcome.ts scrubs it once, at the source).
//
// What is scrubbed: every response header's value (scrubHeaders; a header whose *name* holds a key is dropped,
// a name cannot be redacted), and every body the gateway forwards (client-sink.ts) or builds from upstream answers
// (the aggregated model list, models-list.ts), after decoding a compressed one (body-decoding.ts), so the
// scrubber always reads the bytes the client gets. A forwarded body's declared length is dropped (the answer goes
// chunked) because the scrubbed body may be shorter or longer; that is the only change a keyed gateway makes to
// an answer that holds no key. Trailers are never forwarded at all (client-sink.ts ends the response without
// them), so there is nothing of them to scrub. Scrubbing every body, rather than only error answers or error
// events, is what makes it safe: by the time the meter recognizes an error event its first bytes may be on the
// client's socket already, and a key can come back in a successful answer too.
//
// Per chunk: `Buffer.indexOf` per key (native search; keys are long, high-entropy strings, so a miss is quick),
// then the chunk's tail. A key split across two chunks would escape a per-chunk search, so a tail that equals the
// start of a key (however short) is held back and put in front of the next chunk; the search then sees the key
// whole, and no byte of it ever leaves. Holding back delays nothing a client can use: keys hold no line break
// (they travel in a header), so a held tail is always inside an unfinished line, and an SSE event or an NDJSON
// line is not usable before its line break arrives. An SSE chunk ends with one, so the usual case costs a single
// table lookup of the last byte. The bytes are only regrouped, never changed: a held tail that turns out not to
// be a key goes out with the next chunk, or at the end. The alternative considered, holding back only tails of at
// least N bytes and scrubbing the rest of a key whose start went out, lets up to N - 1 bytes of a key leave and
// needs a second mechanism; it saves nothing measurable. Measured on the 2-core test machine, one key: 0.3-0.5 us
// per SSE chunk, about 5 us for a 10-token stream, against 2-5 ms of the gateway's CPU per request; the overhead
// benchmark (bench/gateway-overhead.ts, a keyed gateway beside the keyless one) shows no difference beyond its
// run-to-run noise. Reading the escaped spellings (below) adds nothing but a search for `\` to a chunk without
// one. bench/key-scrubber-chunks.ts on the same machine, shared (load average 13), before -> after: an SSE chunk
// 0.7-0.9 -> 1.0-1.6 us, one with `\n` and `\"` in its text 0.8-1.3 -> 1.5-2.4 us, a 4.8 KB answer with a `\n`
// every 5 bytes 1.7-1.8 -> 21-23 us (Buffer.indexOf's search for `\u` stops at every backslash), a chunk quoting
// the key spelled with escapes 5.4-5.7 us (passed on unscrubbed before).
//
// Keys shorter than MIN_SCRUBBED_KEY_BYTES are not scrubbed (and the gateway warns at start): placeholders such as
// "EMPTY" are ordinary words, and replacing them would rewrite ordinary answers. What is matched: the key's exact
// bytes, its percent-encoded form (what a URL or a form field quoting it holds) when it differs, and every spelling
// a JSON string allows for it: any of its characters written `\uXXXX` (hex digits in either case), `/` written
// `\/` (PHP's default), `"` and `\` escaped, mixed freely (KeySpelling below). Those spellings are not listed (a
// 50-character key has more of them than atoms in the universe): the bytes are read once, left to right, decoding
// JSON escapes as they come, and the decoded characters are matched against the key by Knuth-Morris-Pratt, so the
// work is linear in the chunk's bytes whatever the number of spellings, and done only when the chunk holds a `\`
// (every spelling but the raw key has one; a chunk without one costs a native search as before), from 6 bytes a
// character before its first `\` to as far after its last. A key of characters outside ASCII (none that
// providers issue) is matched raw, percent-encoded and in JSON.stringify's form only. Not matched: base64 or any
// other re-encoding (a Basic credential built from the key, a hash of it, a key split by a JSON string
// concatenation), which no byte search can recognize.
//
// Gateway keys are not scrubbed by bytes: the gateway holds only their SHA-256 digests (gateway-keys.ts), and they
// never travel upstream (client credentials are removed, hop-by-hop.ts). A gateway key configured the same as an
// upstream key is that upstream key, and is scrubbed as such.
import type { ResolvedUpstream } from '../config/config-resolve.js';

export const REDACTED = '[redacted]';
const REDACTED_BYTES = Buffer.from(REDACTED);
/** Shorter keys are placeholders or words, not secrets a search can tell from ordinary text. */
export const MIN_SCRUBBED_KEY_BYTES = 8;

const BACKSLASH = 0x5c;
/** The longest spelling of one character: `\uXXXX`. */
const MAX_SPELLING_BYTES = 6;
/** The character each short JSON escape stands for, by the byte after the backslash (0: not a short escape). */
const SHORT_ESCAPES = new Uint8Array(256);
for (const [letter, code] of [
  ['"', 0x22],
  ['\\', 0x5c],
  ['/', 0x2f],
  ['b', 0x08],
  ['f', 0x0c],
  ['n', 0x0a],
  ['r', 0x0d],
  ['t', 0x09],
] as const) {
  SHORT_ESCAPES[letter.charCodeAt(0)] = code;
}
/** Each hex digit's value, either case; -1 for any other byte. */
const HEX = new Int8Array(256).fill(-1);
for (let d = 0; d < 16; d++) {
  HEX['0123456789abcdef'.charCodeAt(d)] = d;
  HEX['0123456789ABCDEF'.charCodeAt(d)] = d;
}

export class KeyScrubber {
  /** False when there is no key to scrub: bytes then pass untouched and nothing is held back. */
  readonly active: boolean;
  /** Literal forms (the key, percent-encoded), longest first, so a key that contains another is replaced whole. */
  readonly #keys: readonly Buffer[];
  readonly #texts: readonly string[];
  /** Every JSON spelling of each ASCII key, matched while decoding escapes; longest first. */
  readonly #spellings: readonly KeySpelling[];
  /** The most bytes one spelling of the longest key takes. */
  readonly #maxSpellingBytes: number;
  /** 1 for every byte value that occurs in some key: a chunk whose last byte is not one ends no key's start. */
  readonly #inSomeKey = new Uint8Array(256);
  /** 1 for every byte that can end the start of a spelling with escapes (a key's, a backslash, hex, `u`...). */
  readonly #endsSpelling = new Uint8Array(256);

  constructor(keys: readonly string[]) {
    const scrubbed = [...new Set(keys.filter((k) => Buffer.byteLength(k) >= MIN_SCRUBBED_KEY_BYTES))];
    const usable = [...new Set(scrubbed.flatMap(keyForms))].sort(
      (a, b) => Buffer.byteLength(b) - Buffer.byteLength(a),
    );
    this.#texts = usable;
    this.#keys = usable.map((k) => Buffer.from(k));
    for (const key of this.#keys) for (const byte of key) this.#inSomeKey[byte] = 1;
    this.#spellings = scrubbed
      .filter(isAscii)
      .sort((a, b) => b.length - a.length)
      .map((k) => new KeySpelling(k));
    this.#maxSpellingBytes = MAX_SPELLING_BYTES * (this.#spellings[0]?.length ?? 0);
    if (this.#spellings.length > 0) {
      this.#endsSpelling.set(this.#inSomeKey);
      for (const c of '\\u0123456789abcdefABCDEF/"bfnrt') this.#endsSpelling[c.charCodeAt(0)] = 1;
    }
    this.active = usable.length > 0;
  }

  /** The scrubber for a configuration's upstream keys, and a warning for each key too short to scrub. */
  static forUpstreams(upstreams: readonly Pick<ResolvedUpstream, 'name' | 'key'>[]): {
    scrubber: KeyScrubber;
    warnings: string[];
  } {
    const warnings: string[] = [];
    const keys: string[] = [];
    for (const u of upstreams) {
      if (u.key === null) continue;
      keys.push(u.key);
      if (Buffer.byteLength(u.key) < MIN_SCRUBBED_KEY_BYTES) {
        warnings.push(
          `upstream '${u.name}': its key is shorter than ${MIN_SCRUBBED_KEY_BYTES} bytes, too short to tell from ordinary text, so it is not redacted from upstream errors`,
        );
      }
    }
    return { scrubber: new KeyScrubber(keys), warnings };
  }

  /**
   * The text with every key replaced (the record's and log line's error text). A text that was `cut` to a bound
   * may end inside a key: a tail that starts a key is replaced as well.
   */
  scrubText(text: string, cut = false): string {
    if (!this.active) return text;
    if (this.#spellings.length > 0 && text.includes('\\')) {
      // Escapes: the byte matcher, which reads them.
      const bytes = this.scrubBytes(Buffer.from(text));
      const tail = cut ? this.keyStartAtEnd(bytes) : 0;
      return tail === 0
        ? bytes.toString()
        : `${bytes.subarray(0, bytes.length - tail).toString()}${REDACTED}`;
    }
    let out = text;
    for (const key of this.#texts) if (out.includes(key)) out = out.replaceAll(key, REDACTED);
    if (!cut) return out;
    for (const key of this.#texts) {
      for (let n = Math.min(key.length - 1, out.length); n > 0; n--) {
        if (out.endsWith(key.slice(0, n))) return `${out.slice(0, out.length - n)}${REDACTED}`;
      }
    }
    return out;
  }

  /**
   * Response headers with every key in a value replaced, and any header whose name holds a key dropped; changed
   * in place (the caller's own copy) and returned.
   */
  scrubHeaders<H extends Record<string, string | string[] | number | undefined>>(headers: H): H {
    if (!this.active) return headers;
    for (const name of Object.keys(headers)) {
      if (this.scrubText(name) !== name) {
        delete headers[name];
        continue;
      }
      const value = headers[name];
      if (typeof value === 'string') (headers as Record<string, unknown>)[name] = this.scrubText(value);
      else if (Array.isArray(value))
        (headers as Record<string, unknown>)[name] = value.map((v) => this.scrubText(v));
    }
    return headers;
  }

  /** The bytes with every whole key, in any spelling, replaced; the same Buffer when none is in it. */
  scrubBytes(bytes: Buffer): Buffer {
    let out = bytes;
    for (const key of this.#keys) {
      let at = out.indexOf(key);
      if (at < 0) continue;
      const parts: Buffer[] = [];
      let from = 0;
      while (at >= 0) {
        parts.push(out.subarray(from, at), REDACTED_BYTES);
        from = at + key.length;
        at = out.indexOf(key, from);
      }
      parts.push(out.subarray(from));
      out = Buffer.concat(parts);
    }
    if (this.#spellings.length === 0) return out;
    const first = out.indexOf(BACKSLASH);
    if (first < 0) return out;
    for (const spelling of this.#spellings) {
      // A spelling with an escape lies within this many bytes of a backslash; before the first one no escape
      // starts, so decoding from there is decoding from the start.
      const reach = MAX_SPELLING_BYTES * spelling.length;
      const from = Math.max(0, out.indexOf(BACKSLASH) - reach);
      const to = Math.min(out.length, out.lastIndexOf(BACKSLASH) + reach);
      const found = spelling.find(out, from, to);
      if (found.matches.length > 0) out = replaceRanges(out, found.matches);
    }
    return out;
  }

  /** How many trailing bytes may start a key (shorter than it), raw or spelled with escapes: the longest, or 0. */
  keyStartAtEnd(bytes: Buffer): number {
    const end = bytes.length;
    if (end === 0) return 0;
    const last = bytes[end - 1] as number;
    let longest = 0;
    if (this.#inSomeKey[last] === 1) {
      for (const key of this.#keys) {
        const first = key[0] as number;
        // The earliest candidate is the longest tail; a whole key would have been found and replaced already.
        let at = bytes.indexOf(first, Math.max(0, end - key.length + 1));
        while (at >= 0 && end - at > longest) {
          if (key.compare(bytes, at, end, 0, end - at) === 0) {
            longest = end - at;
            break;
          }
          at = bytes.indexOf(first, at + 1);
        }
      }
    }
    if (this.#endsSpelling[last] === 0) return longest;
    const window = Math.max(0, end - this.#maxSpellingBytes);
    if (bytes.indexOf(BACKSLASH, window) < 0) return longest;
    for (const spelling of this.#spellings) {
      // Decoding from inside an escape can only see more of a key than is there (held a chunk longer), never less:
      // a start of a spelling is shorter than the window.
      const tail = end - spelling.find(bytes, window, end).tailAt;
      if (tail > longest) longest = tail;
    }
    return longest;
  }

  /** One response's scrubbing state (the tail held back between chunks). */
  stream(): ScrubbedStream {
    return new ScrubbedStream(this);
  }
}

/** The key and, where it differs, its percent-encoded form; for a key outside ASCII, its JSON-escaped form too. */
function keyForms(key: string): string[] {
  const forms = [key, encodeURIComponent(key)];
  if (!isAscii(key)) forms.push(JSON.stringify(key).slice(1, -1));
  return forms;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** `at` when it is a position before `to`, else `to` (indexOf's -1 included). */
function before(at: number, to: number): number {
  return at < 0 || at > to ? to : at;
}

/** `bytes` with each [start, end) range, in order and apart, replaced by REDACTED. */
function replaceRanges(bytes: Buffer, ranges: readonly number[]): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = 0; i < ranges.length; i += 2) {
    parts.push(bytes.subarray(from, ranges[i]), REDACTED_BYTES);
    from = ranges[i + 1] as number;
  }
  parts.push(bytes.subarray(from));
  return Buffer.concat(parts);
}

/**
 * One ASCII key, matched in any JSON spelling: the bytes are decoded as JSON string escapes as they are read (a
 * backslash that starts no valid escape is itself), and the characters run through the key's Knuth-Morris-Pratt
 * automaton, so each byte is looked at once.
 */
export class KeySpelling {
  readonly length: number;
  readonly #units: Uint16Array;
  /** KMP: after a mismatch at q matched characters, the longest proper prefix that is also a suffix. */
  readonly #fallback: Int32Array;
  /** Where each of the last `length` characters started, by character count modulo length. */
  readonly #starts: Int32Array;
  /** The key's first character: where a raw spelling starts. */
  readonly #first: number;
  /** Where an escaped spelling starts: `\u`, or any backslash when the first character has a short escape. */
  readonly #escapeStart: Buffer;

  constructor(key: string) {
    this.length = key.length;
    this.#units = Uint16Array.from(key, (c) => c.charCodeAt(0));
    this.#fallback = new Int32Array(key.length + 1);
    for (let q = 1, k = 0; q < key.length; q++) {
      while (k > 0 && this.#units[q] !== this.#units[k]) k = this.#fallback[k] as number;
      if (this.#units[q] === this.#units[k]) k++;
      this.#fallback[q + 1] = k;
    }
    this.#starts = new Int32Array(key.length);
    this.#first = this.#units[0] as number;
    this.#escapeStart = Buffer.from(SHORT_ESCAPES.includes(this.#first) ? '\\' : '\\u');
  }

  /**
   * The spellings of the key in bytes[from, to): `matches` as start, end pairs (apart, in order), and `tailAt`,
   * where a spelling that `to` cuts short starts (a key's start, or an escape not finished), `to` when none.
   */
  find(bytes: Buffer, from: number, to: number): { matches: number[]; tailAt: number } {
    // Between spellings (nothing matched yet) the bytes are skipped by native search to the next place one can
    // start: the key's first character raw, or an escape (`\u`; any backslash when that character has a short
    // escape). Ordinary text is then read at indexOf's pace, not byte by byte in JavaScript.
    const units = this.#units;
    const fallback = this.#fallback;
    const starts = this.#starts;
    const length = this.length;
    const matches: number[] = [];
    let q = 0;
    let count = 0;
    let i = from;
    let nextFirst = -1;
    let nextEscape = -1;
    while (i < to) {
      if (q === 0) {
        if (nextFirst < i) nextFirst = before(bytes.indexOf(this.#first, i), to);
        if (nextEscape < i) nextEscape = before(bytes.indexOf(this.#escapeStart, i), to);
        let next = Math.min(nextFirst, nextEscape);
        if (next === to) {
          // A backslash at the very end may start an escape the next chunk finishes: held (harmless if not).
          return { matches, tailAt: to > i && bytes[to - 1] === BACKSLASH ? to - 1 : to };
        }
        if (next === nextEscape) {
          // `\\u0041` is a backslash, then `u0041`: a backslash after an odd run of them is the second of a pair.
          let run = 0;
          while (next - run - 1 >= i && bytes[next - run - 1] === BACKSLASH) run++;
          if (run % 2 === 1) next--;
        }
        i = next;
      }
      let unit = bytes[i] as number;
      let size = 1;
      if (unit === BACKSLASH) {
        if (i + 1 >= to) return { matches, tailAt: q > 0 ? (starts[(count - q) % length] as number) : i };
        const next = bytes[i + 1] as number;
        if (next === 0x75 /* u */) {
          let value = 0;
          let digits = 0;
          while (digits < 4 && i + 2 + digits < to) {
            const digit = HEX[bytes[i + 2 + digits] as number] as number;
            if (digit < 0) break;
            value = value * 16 + digit;
            digits++;
          }
          if (digits === 4) {
            unit = value;
            size = 6;
          } else if (i + 2 + digits >= to) {
            // `\u` and some hex digits, then the end: the escape may be finished in the next chunk.
            return { matches, tailAt: q > 0 ? (starts[(count - q) % length] as number) : i };
          }
        } else if (SHORT_ESCAPES[next] !== 0) {
          unit = SHORT_ESCAPES[next] as number;
          size = 2;
        }
      }
      while (q > 0 && unit !== units[q]) q = fallback[q] as number;
      if (unit === units[q]) {
        starts[count % length] = i;
        count++;
        q++;
        if (q === length) {
          matches.push(starts[(count - length) % length] as number, i + size);
          q = 0;
        }
      } else {
        count++;
      }
      i += size;
    }
    return { matches, tailAt: q > 0 ? (starts[(count - q) % length] as number) : to };
  }
}

/** Scrubs one response chunk by chunk, holding back a tail that may be the start of a key split by the chunking. */
export class ScrubbedStream {
  readonly #scrubber: KeyScrubber;
  #held: Buffer | null = null;

  constructor(scrubber: KeyScrubber) {
    this.#scrubber = scrubber;
  }

  /** The bytes to pass on now (possibly empty): this chunk, after what was held, less a new held tail. */
  push(chunk: Buffer): Buffer {
    const held = this.#held;
    this.#held = null;
    const bytes = this.#scrubber.scrubBytes(held === null ? chunk : Buffer.concat([held, chunk]));
    const keep = this.#scrubber.keyStartAtEnd(bytes);
    if (keep === 0) return bytes;
    // A copy: the held tail is short, and a slice would keep the whole chunk alive.
    this.#held = Buffer.from(bytes.subarray(bytes.length - keep));
    return bytes.subarray(0, bytes.length - keep);
  }

  /** What is still held at the end of the body: the start of a key, never a whole one. */
  flush(): Buffer | null {
    const held = this.#held;
    this.#held = null;
    return held;
  }
}
