// An upstream that compresses its answers like a CDN: gzip, deflate (zlib-wrapped or raw) or brotli, either only
// when the request's Accept-Encoding asks for it or always. Each part of the body is flushed on its own
// (Z_SYNC_FLUSH), at its time, so a compressed stream reaches the gateway event by event as an uncompressed one
// would, and the two can be compared timing for timing.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  constants,
  createBrotliCompress,
  createDeflate,
  createDeflateRaw,
  createGzip,
  type Gzip,
} from 'node:zlib';

export type Compression = 'gzip' | 'deflate' | 'deflate-raw' | 'br';

export interface CompressedAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The body's parts, each written `atMs` after the previous one. */
  readonly parts: readonly { readonly atMs: number; readonly data: string }[];
}

function compressor(compression: Compression): Gzip {
  switch (compression) {
    case 'gzip':
      return createGzip();
    case 'deflate':
      return createDeflate() as unknown as Gzip;
    case 'deflate-raw':
      return createDeflateRaw() as unknown as Gzip;
    case 'br':
      return createBrotliCompress() as unknown as Gzip;
  }
}

/** The Content-Encoding a compression is labelled with (raw deflate travels as `deflate`, as servers send it). */
function label(compression: Compression): string {
  return compression === 'deflate-raw' ? 'deflate' : compression;
}

function flushed(zlib: Gzip, compression: Compression): Promise<void> {
  const kind = compression === 'br' ? constants.BROTLI_OPERATION_FLUSH : constants.Z_SYNC_FLUSH;
  return new Promise((resolve) => zlib.flush(kind, () => resolve()));
}

/** Writes `answer` compressed with `compression`, or plain when `compression` is null. */
export async function sendCompressed(
  res: ServerResponse,
  answer: CompressedAnswer,
  compression: Compression | null,
): Promise<void> {
  if (compression === null) {
    res.writeHead(answer.status, answer.headers);
    for (const part of answer.parts) {
      await sleep(part.atMs);
      res.write(part.data);
    }
    res.end();
    return;
  }
  res.writeHead(answer.status, {
    ...answer.headers,
    'content-encoding': label(compression),
    vary: 'accept-encoding',
  });
  res.flushHeaders();
  const zlib = compressor(compression);
  zlib.pipe(res);
  for (const part of answer.parts) {
    await sleep(part.atMs);
    zlib.write(part.data);
    await flushed(zlib, compression);
  }
  zlib.end();
}

/** The compression a CDN would pick for this request: the first of gzip, br, deflate it accepts; null for none. */
export function negotiated(req: IncomingMessage): Compression | null {
  const accepted = String(req.headers['accept-encoding'] ?? '')
    .split(',')
    .map((coding) => coding.trim().split(';')[0]?.toLowerCase());
  for (const coding of ['gzip', 'br', 'deflate'] as const) if (accepted.includes(coding)) return coding;
  return null;
}
