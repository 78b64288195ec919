// The request body, read whole as bytes (any content type: they go upstream unchanged), within maxBodyBytes. A
// declared length beyond the bound is refused before a byte is read; a body that grows past it is refused as
// soon as it does, and the rest is not buffered. Methods without a body (GET, HEAD, TRACE) and requests that
// declare none have no body: undefined, as opposed to an empty one.
import type { IncomingMessage } from 'node:http';
import { GatewayError } from './errors.js';

const BODYLESS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'TRACE']);

function tooLarge(): GatewayError {
  return new GatewayError(
    'request_too_large',
    'the request body is larger than maxBodyBytes allows; send less or raise it',
  );
}

function unreadable(cause?: unknown): GatewayError {
  return new GatewayError(
    'invalid_request_body',
    'the request body could not be read; send JSON with a content-type',
    cause === undefined ? undefined : { cause },
  );
}

/** True when the request carries a body to read. */
export function hasBody(request: IncomingMessage): boolean {
  if (BODYLESS.has(request.method ?? 'GET')) return false;
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Reads the body and calls `done` once: with the bytes, or with the refusal to answer. A client that goes away
 * mid-body calls nothing (its connection's close finishes the request).
 */
export function readBody(
  request: IncomingMessage,
  limit: number,
  done: (error: GatewayError | null, body: Buffer | undefined) => void,
): void {
  const declared = Number(request.headers['content-length']);
  if (declared > limit) {
    done(tooLarge(), undefined);
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  /** done() was called: whatever the request emits after is not this read's. */
  let settled = false;
  const onData = (chunk: Buffer): void => {
    if (settled) return;
    received += chunk.length;
    if (received > limit) {
      stop();
      settled = true;
      done(tooLarge(), undefined);
      return;
    }
    chunks.push(chunk);
  };
  // Listeners are removed only when reading stops early: removing a 'data' listener schedules a tick to update
  // the stream's flowing state, a cost per request for nothing once the body has ended.
  const onEnd = (): void => {
    if (settled) return;
    settled = true;
    if (!Number.isNaN(declared) && received !== declared) {
      done(unreadable(), undefined);
      return;
    }
    done(null, chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received));
  };
  const onError = (error: Error): void => {
    if (settled) return;
    stop();
    settled = true;
    if (!request.socket?.destroyed) done(unreadable(error), undefined);
  };
  function stop(): void {
    request.off('data', onData);
    request.off('end', onEnd);
    request.off('error', onError);
  }
  request.on('data', onData);
  request.on('end', onEnd);
  request.on('error', onError);
}
