// Reads an export's body within a byte bound, and inflates it when the exporter gzipped it, within the same bound
// (a small gzip body can inflate a thousandfold). Both bounds are what keeps an exporter, or anyone who can reach
// the port, from making the receiver hold more than `maxBytes` per export.
import type { IncomingMessage } from 'node:http';
import { gunzip } from 'node:zlib';

export type BodyResult =
  | { readonly kind: 'ok'; readonly bytes: Buffer }
  | { readonly kind: 'too_large' }
  | { readonly kind: 'malformed'; readonly message: string };

/** The raw bytes as sent (what forwarding passes on unchanged), or too_large past `maxBytes`. */
export function readRawBody(request: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  const declared = Number(request.headers['content-length']);
  if (declared > maxBytes) return Promise.resolve({ kind: 'too_large' });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const onData = (chunk: Buffer): void => {
      length += chunk.length;
      if (length > maxBytes) {
        // Stop holding what comes next; the answer closes the connection, which discards the rest.
        request.off('data', onData);
        request.pause();
        chunks.length = 0;
        resolve({ kind: 'too_large' });
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => resolve({ kind: 'ok', bytes: Buffer.concat(chunks, length) }));
    request.once('error', reject);
  });
}

/** The body inflated when the exporter gzipped it (content-encoding: gzip). */
export function decodedBody(raw: Buffer, gzipped: boolean, maxBytes: number): Promise<BodyResult> {
  if (!gzipped) return Promise.resolve({ kind: 'ok', bytes: raw });
  return new Promise((resolve) => {
    gunzip(raw, { maxOutputLength: maxBytes }, (error, bytes) => {
      if (error === null) resolve({ kind: 'ok', bytes });
      else if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') resolve({ kind: 'too_large' });
      else resolve({ kind: 'malformed', message: 'the gzip body could not be inflated' });
    });
  });
}
