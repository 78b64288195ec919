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
// run-to-run noise.
//
// Keys shorter than MIN_SCRUBBED_KEY_BYTES are not scrubbed (and the gateway warns at start): placeholders such as
// "EMPTY" are ordinary words, and replacing them would rewrite ordinary answers. What is matched: the key's exact
// bytes, and, when they differ from it, its JSON-escaped form (what a JSON body quoting it holds) and its
// percent-encoded form (what a URL or a form field quoting it holds). Keys as providers issue them are letters,
// digits, `-` and `_`, for which both forms are the key itself. Not matched: base64 or any other re-encoding (a
// Basic credential built from the key, a hash of it), which a byte search cannot recognize.
//
// Gateway keys are not scrubbed by bytes: the gateway holds only their SHA-256 digests (gateway-keys.ts), and they
// never travel upstream (client credentials are removed, hop-by-hop.ts). A gateway key configured the same as an
// upstream key is that upstream key, and is scrubbed as such.
import type { ResolvedUpstream } from './config-resolve.js';

export const REDACTED = '[redacted]';
const REDACTED_BYTES = Buffer.from(REDACTED);
/** Shorter keys are placeholders or words, not secrets a search can tell from ordinary text. */
export const MIN_SCRUBBED_KEY_BYTES = 8;

export class KeyScrubber {
  /** False when there is no key to scrub: bytes then pass untouched and nothing is held back. */
  readonly active: boolean;
  /** Longest first, so a key that contains another is replaced whole. */
  readonly #keys: readonly Buffer[];
  readonly #texts: readonly string[];
  /** 1 for every byte value that occurs in some key: a chunk whose last byte is not one ends no key's start. */
  readonly #inSomeKey = new Uint8Array(256);

  constructor(keys: readonly string[]) {
    const usable = [
      ...new Set(keys.filter((k) => Buffer.byteLength(k) >= MIN_SCRUBBED_KEY_BYTES).flatMap(keyForms)),
    ].sort((a, b) => Buffer.byteLength(b) - Buffer.byteLength(a));
    this.#texts = usable;
    this.#keys = usable.map((k) => Buffer.from(k));
    for (const key of this.#keys) for (const byte of key) this.#inSomeKey[byte] = 1;
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

  /** The bytes with every whole key replaced; the same Buffer when none is in it. */
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
    return out;
  }

  /** How many trailing bytes equal the start of some key (shorter than it): the longest such tail, or 0. */
  keyStartAtEnd(bytes: Buffer): number {
    const end = bytes.length;
    if (end === 0 || this.#inSomeKey[bytes[end - 1] as number] === 0) return 0;
    let longest = 0;
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
    return longest;
  }

  /** One response's scrubbing state (the tail held back between chunks). */
  stream(): ScrubbedStream {
    return new ScrubbedStream(this);
  }
}

/** The key and, where they differ from it, the JSON-escaped and percent-encoded forms it may be quoted in. */
function keyForms(key: string): string[] {
  return [key, JSON.stringify(key).slice(1, -1), encodeURIComponent(key)];
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
