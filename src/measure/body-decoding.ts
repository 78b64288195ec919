// A response body that arrives compressed (Content-Encoding gzip, deflate or br), decoded as it arrives, so the
// meter reads events and the gateway's scrubber reads the bytes the client gets. A measuring proxy asks for an
// uncompressed answer (the gateway sends `accept-encoding: identity`), but CDNs and some servers compress anyway.
//
// Decoding is node:zlib's streaming decompressors, so a chunk is decoded as soon as it arrives (a gzip stream
// flushed per event yields each event as it was sent) and memory is bounded: the decoder's output is paced by
// the sink (pause() while the client's socket is full; zlib then stops inflating once its own buffer of one
// highWaterMark is full), so a small compressed body that inflates to gigabytes is produced only as fast as the
// client reads it.
//
// Timing: each decoded chunk carries the arrival time of the compressed chunk it came from, not the moment zlib
// (on the thread pool) handed it back, so a compressed stream's TTFT and gaps are those of the same stream
// uncompressed. zlib processes writes in order, and a write's callback fires after the output of that write was
// pushed, so the arrival time of decoded output is the oldest write not yet called back.
import {
  type BrotliDecompress,
  createBrotliDecompress,
  createGunzip,
  createInflate,
  createInflateRaw,
  type Gunzip,
  type Inflate,
  type InflateRaw,
} from 'node:zlib';

export type BodyEncoding = 'gzip' | 'deflate' | 'br';

/** The encoding to decode, from a Content-Encoding value; null for none, identity, or one this cannot decode. */
export function decodableEncoding(contentEncoding: string | string[] | undefined): BodyEncoding | null {
  if (contentEncoding === undefined) return null;
  const value = (Array.isArray(contentEncoding) ? contentEncoding.join(',') : contentEncoding)
    .trim()
    .toLowerCase();
  if (value === 'gzip' || value === 'x-gzip') return 'gzip';
  if (value === 'deflate') return 'deflate';
  if (value === 'br') return 'br';
  return null;
}

type Decompressor = Gunzip | Inflate | InflateRaw | BrotliDecompress;

export interface DecodedSink {
  /** Decoded bytes, with the arrival time of the compressed chunk they came from. */
  data(bytes: Buffer, arrivedAt: number): void;
  /** Every decoded byte was handed to data(). */
  end(): void;
  /** The body is not valid in its encoding. */
  error(error: Error): void;
}

export class BodyDecoder {
  readonly #encoding: BodyEncoding;
  readonly #sink: DecodedSink;
  #zlib: Decompressor | null = null;
  /** Arrival times of the compressed chunks written and not yet called back, oldest first. */
  readonly #arrivals: number[] = [];
  #lastArrival = Number.NaN;
  #failed = false;

  constructor(encoding: BodyEncoding, sink: DecodedSink) {
    this.#encoding = encoding;
    this.#sink = sink;
  }

  push(chunk: Buffer, arrivedAt: number): void {
    if (this.#failed) return;
    const zlib = this.#zlib ?? this.#start(chunk);
    this.#arrivals.push(arrivedAt);
    this.#lastArrival = arrivedAt;
    zlib.write(chunk, () => this.#arrivals.shift());
  }

  /** The compressed body ended: the sink's end() follows once the last decoded byte went to data(). */
  end(): void {
    if (this.#failed) return;
    if (this.#zlib === null) {
      this.#sink.end();
      return;
    }
    this.#zlib.end();
  }

  /** Stops producing output until resume(): the sink is full. */
  pause(): void {
    this.#zlib?.pause();
  }

  resume(): void {
    this.#zlib?.resume();
  }

  /** Stops decoding for good (the exchange was aborted); nothing more reaches the sink. */
  destroy(): void {
    this.#failed = true;
    this.#zlib?.destroy();
  }

  #start(first: Buffer): Decompressor {
    const zlib = this.#create(first);
    zlib.on('data', (bytes: Buffer) => {
      if (!this.#failed) this.#sink.data(bytes, this.#arrivals[0] ?? this.#lastArrival);
    });
    zlib.once('end', () => {
      if (!this.#failed) this.#sink.end();
    });
    zlib.once('error', (error: Error) => {
      if (this.#failed) return;
      this.#failed = true;
      this.#sink.error(error);
    });
    this.#zlib = zlib;
    return zlib;
  }

  #create(first: Buffer): Decompressor {
    switch (this.#encoding) {
      case 'gzip':
        return createGunzip();
      case 'br':
        return createBrotliDecompress();
      case 'deflate':
        // `deflate` is meant to be zlib-wrapped (RFC 9110 8.4.1.2), but some servers send raw deflate: a zlib
        // stream's first byte names the deflate method (low nibble 8).
        return ((first[0] ?? 0) & 0x0f) === 0x08 ? createInflate() : createInflateRaw();
    }
  }
}
