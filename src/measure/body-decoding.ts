// A response body that arrives compressed (Content-Encoding gzip, deflate, br, zstd where this Node has it, or a
// stack of them), decoded as it arrives, so the meter reads events and the gateway's scrubber reads the bytes the
// client gets. A measuring proxy asks for an uncompressed answer (the gateway sends `accept-encoding: identity`),
// but CDNs and some servers compress anyway. An encoding that cannot be decoded (`compress`, zstd on a Node
// without it, a name nobody knows) is never passed on undecoded: its bytes could hold the key in a form the
// scrubber cannot see, and a client that decodes it would get it. The caller refuses such an answer instead.
//
// Decoding is node:zlib's streaming decompressors, one per coding, so a chunk is decoded as soon as it arrives (a
// gzip stream flushed per event yields each event as it was sent) and memory is bounded: the decoders' output is
// paced by the sink (pause() while the client's socket is full; zlib then stops inflating once its own buffer of
// one highWaterMark is full), and each decoder of a stack waits for the next one to drain, so a small body that
// inflates to gigabytes, once or twice over, is produced only as fast as the client reads it.
//
// Timing: each decoded chunk carries the arrival time of the compressed chunk it came from, not the moment zlib
// (on the thread pool) handed it back, so a compressed stream's TTFT and gaps are those of the same stream
// uncompressed. zlib processes writes in order, and a write's callback fires after the output of that write was
// pushed, so the arrival time of decoded output is the oldest write not yet called back (for each decoder of a
// stack, the arrival time its input came with).
import type { Transform } from 'node:stream';
import { promisify } from 'node:util';
import * as zlib from 'node:zlib';

export type BodyCoding = 'gzip' | 'deflate' | 'br' | 'zstd';

/** zstd's decoder, in the Node versions that have one (22.15 and later; @types/node 20 does not know it). */
const zstd = zlib as unknown as {
  createZstdDecompress?: () => Transform;
  zstdDecompress?: (
    bytes: Buffer,
    options: zlib.ZlibOptions,
    callback: (e: Error | null, r: Buffer) => void,
  ) => void;
};

/** This Node can decode zstd. */
export const ZSTD_DECODABLE = typeof zstd.createZstdDecompress === 'function';

/** The code of the error for an answer in an encoding this cannot decode (the gateway answers it 502). */
export const UNDECODABLE_ENCODING_CODE = 'TOKENMETER_UNDECODABLE_ENCODING';

/** Codings registered with IANA that are named in the error; any other name is not repeated (it could be a key). */
const KNOWN_UNDECODABLE = new Set([
  'compress',
  'x-compress',
  'zstd',
  'exi',
  'pack200-gzip',
  'aes128gcm',
  'dcb',
  'dcz',
]);

/** How to read a body: the codings to undo, in the order to undo them (none: plain), or the one that cannot be. */
export type BodyDecoding =
  | { readonly codings: readonly BodyCoding[] }
  | { readonly undecodable: Error & { readonly code: string } };

const PLAIN: BodyDecoding = Object.freeze({ codings: Object.freeze([]) });

function coding(name: string): BodyCoding | null {
  switch (name) {
    case 'gzip':
    case 'x-gzip':
      return 'gzip';
    case 'deflate':
      return 'deflate';
    case 'br':
      return 'br';
    case 'zstd':
      return ZSTD_DECODABLE ? 'zstd' : null;
    default:
      return null;
  }
}

/**
 * How to read a body sent with this Content-Encoding. The codings are listed in the order they were applied (RFC
 * 9110 8.4), so they are undone last first; `identity` entries (and empty ones) change nothing; a header sent
 * twice arrives as an array, which is the same list split in two.
 */
export function bodyDecoding(contentEncoding: string | string[] | undefined): BodyDecoding {
  if (contentEncoding === undefined) return PLAIN;
  const names = (Array.isArray(contentEncoding) ? contentEncoding.join(',') : contentEncoding)
    .toLowerCase()
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '' && name !== 'identity');
  if (names.length === 0) return PLAIN;
  const codings: BodyCoding[] = [];
  for (const name of names.reverse()) {
    const known = coding(name);
    if (known === null) {
      const named = KNOWN_UNDECODABLE.has(name) ? `Content-Encoding '${name}'` : 'a Content-Encoding';
      const why = name === 'zstd' ? ` (this Node, ${process.version}, has no zstd decoder)` : '';
      const error = Object.assign(
        new Error(`answered in ${named} the gateway cannot decode${why}, although it asked for identity`),
        { code: UNDECODABLE_ENCODING_CODE },
      );
      return { undecodable: error };
    }
    codings.push(known);
  }
  return { codings };
}

/** `deflate` is meant to be zlib-wrapped (RFC 9110 8.4.1.2), but some servers send raw deflate: a zlib stream's
 *  first byte names the deflate method (low nibble 8). */
function isRawDeflate(first: Buffer): boolean {
  return ((first[0] ?? 0) & 0x0f) !== 0x08;
}

function decompressor(coding: BodyCoding, first: Buffer): Transform {
  switch (coding) {
    case 'gzip':
      return zlib.createGunzip();
    case 'br':
      return zlib.createBrotliDecompress();
    case 'deflate':
      return isRawDeflate(first) ? zlib.createInflateRaw() : zlib.createInflate();
    case 'zstd':
      return (zstd.createZstdDecompress as () => Transform)();
  }
}

const WHOLE = {
  gzip: promisify(zlib.gunzip),
  br: promisify(zlib.brotliDecompress),
  deflate: promisify(zlib.inflate),
  deflateRaw: promisify(zlib.inflateRaw),
} as const;

function decodeOnce(bytes: Buffer, coding: BodyCoding, maxOutputLength: number): Promise<Buffer> {
  const options = { maxOutputLength };
  switch (coding) {
    case 'gzip':
      return WHOLE.gzip(bytes, options);
    case 'br':
      return WHOLE.br(bytes, options);
    case 'deflate':
      return isRawDeflate(bytes) ? WHOLE.deflateRaw(bytes, options) : WHOLE.deflate(bytes, options);
    case 'zstd':
      return promisify(zstd.zstdDecompress as NonNullable<typeof zstd.zstdDecompress>)(bytes, options);
  }
}

/** A whole body decoded off the loop, each step bounded to `maxOutputLength` bytes (past it: a RangeError). */
export async function decodeWhole(
  bytes: Buffer,
  codings: readonly BodyCoding[],
  maxOutputLength: number,
): Promise<Buffer> {
  let decoded = bytes;
  for (const step of codings) decoded = await decodeOnce(decoded, step, maxOutputLength);
  return decoded;
}

export interface DecodedSink {
  /** Decoded bytes, with the arrival time of the compressed chunk they came from. */
  data(bytes: Buffer, arrivedAt: number): void;
  /** Every decoded byte was handed to data(). */
  end(): void;
  /** The body is not valid in its encoding. */
  error(error: Error): void;
}

/** One decoder of the stack: its input stamped with arrival times, its output passed on with them. */
class Stage {
  readonly #coding: BodyCoding;
  readonly #out: DecodedSink;
  #zlib: Transform | null = null;
  /** Arrival times of the chunks written and not yet called back, oldest first. */
  readonly #arrivals: number[] = [];
  #lastArrival = Number.NaN;
  /** Paused by the decoder's owner (the sink is full), as opposed to waiting for the next stage to drain. */
  #pausedOutside = false;
  #waitingForNext = false;

  constructor(coding: BodyCoding, out: DecodedSink) {
    this.#coding = coding;
    this.#out = out;
  }

  /** Writes a chunk; false when this stage's input is full (the previous stage should wait for onDrain). */
  push(chunk: Buffer, arrivedAt: number): boolean {
    const zlib = this.#zlib ?? this.#start(chunk);
    this.#arrivals.push(arrivedAt);
    this.#lastArrival = arrivedAt;
    return zlib.write(chunk, () => this.#arrivals.shift());
  }

  onDrain(resume: () => void): void {
    if (this.#zlib === null) resume();
    else this.#zlib.once('drain', resume);
  }

  end(): void {
    if (this.#zlib === null) this.#out.end();
    else this.#zlib.end();
  }

  pause(): void {
    this.#pausedOutside = true;
    this.#zlib?.pause();
  }

  resume(): void {
    this.#pausedOutside = false;
    if (!this.#waitingForNext) this.#zlib?.resume();
  }

  /** Stops this stage until `next` drains. */
  waitFor(next: Stage): void {
    if (this.#waitingForNext) return;
    this.#waitingForNext = true;
    this.#zlib?.pause();
    next.onDrain(() => {
      this.#waitingForNext = false;
      if (!this.#pausedOutside) this.#zlib?.resume();
    });
  }

  destroy(): void {
    this.#zlib?.destroy();
  }

  #start(first: Buffer): Transform {
    const zlib = decompressor(this.#coding, first);
    zlib.on('data', (bytes: Buffer) => this.#out.data(bytes, this.#arrivals[0] ?? this.#lastArrival));
    zlib.once('end', () => this.#out.end());
    zlib.once('error', (error: Error) => this.#out.error(error));
    if (this.#pausedOutside) zlib.pause();
    this.#zlib = zlib;
    return zlib;
  }
}

export class BodyDecoder {
  readonly #sink: DecodedSink;
  /** One per coding, in the order they are undone: the body goes into the first, the last feeds the sink. */
  readonly #stages: Stage[];
  #failed = false;

  constructor(codings: readonly BodyCoding[], sink: DecodedSink) {
    this.#sink = sink;
    const stages: Stage[] = [];
    for (let i = codings.length - 1; i >= 0; i--) {
      const next = stages[0];
      const out: DecodedSink =
        next === undefined
          ? {
              data: (bytes, at) => {
                if (!this.#failed) sink.data(bytes, at);
              },
              end: () => {
                if (!this.#failed) sink.end();
              },
              error: (error) => this.#fail(error),
            }
          : {
              data: (bytes, at) => {
                if (!this.#failed && !next.push(bytes, at)) stage.waitFor(next);
              },
              end: () => {
                if (!this.#failed) next.end();
              },
              error: (error) => this.#fail(error),
            };
      const stage = new Stage(codings[i] as BodyCoding, out);
      stages.unshift(stage);
    }
    this.#stages = stages;
  }

  push(chunk: Buffer, arrivedAt: number): void {
    if (this.#failed) return;
    const first = this.#stages[0];
    if (first === undefined) this.#sink.data(chunk, arrivedAt);
    else first.push(chunk, arrivedAt);
  }

  /** The compressed body ended: the sink's end() follows once the last decoded byte went to data(). */
  end(): void {
    if (this.#failed) return;
    const first = this.#stages[0];
    if (first === undefined) this.#sink.end();
    else first.end();
  }

  /** Stops producing output until resume(): the sink is full. */
  pause(): void {
    for (const stage of this.#stages) stage.pause();
  }

  resume(): void {
    for (const stage of this.#stages) stage.resume();
  }

  /** Stops decoding for good (the exchange was aborted); nothing more reaches the sink. */
  destroy(): void {
    this.#failed = true;
    for (const stage of this.#stages) stage.destroy();
  }

  #fail(error: Error): void {
    if (this.#failed) return;
    this.destroy();
    this.#sink.error(error);
  }
}
