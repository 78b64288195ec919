// Reads an export's body within a byte bound, and inflates it when the exporter gzipped it, within the same bound
// (a small gzip body can inflate a thousandfold). Both bounds are what keeps an exporter, or anyone who can reach
// the port, from making the receiver hold more than `maxBytes` per export; the time bound keeps a sender that
// trickles its body, or stops, from holding one of the receiver's few reading slots.
import type { IncomingMessage } from 'node:http';
import { gunzip } from 'node:zlib';

export type BodyResult =
  | { readonly kind: 'ok'; readonly bytes: Buffer }
  | { readonly kind: 'too_large' }
  | { readonly kind: 'malformed'; readonly message: string }
  /** The body did not arrive whole within the time bound, or the sender went away: nothing to answer. */
  | { readonly kind: 'incomplete' };

/**
 * The raw bytes as sent (what forwarding passes on unchanged); too_large past `maxBytes`; incomplete when the
 * body is not whole within `timeoutMs` (the request is then destroyed) or the connection closes first.
 */
export function readRawBody(
  request: IncomingMessage,
  maxBytes: number,
  timeoutMs: number,
): Promise<BodyResult> {
  const declared = Number(request.headers['content-length']);
  if (declared > maxBytes) return Promise.resolve({ kind: 'too_large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const finish = (result: BodyResult): void => {
      clearTimeout(timer);
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('close', onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      length += chunk.length;
      if (length > maxBytes) {
        // Stop holding what comes next; the answer closes the connection, which discards the rest.
        request.pause();
        chunks.length = 0;
        finish({ kind: 'too_large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish({ kind: 'ok', bytes: Buffer.concat(chunks, length) });
    // 'close' before 'end': the sender went away mid-body (an error, if any, comes with it).
    const onClose = (): void => finish({ kind: 'incomplete' });
    const timer = setTimeout(() => {
      finish({ kind: 'incomplete' });
      request.destroy();
    }, timeoutMs);
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('close', onClose);
    request.on('error', () => {}); // reported by 'close'
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
