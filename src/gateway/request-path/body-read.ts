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

/**
 * Past this many bytes of a body, the rest is copied chunk by chunk into one buffer (of the declared length, or
 * of maxBodyBytes in chunked encoding) instead of being joined when it ends: joining 15 MB took one 9-25 ms turn
 * of the loop on the 2-core test machine, the stall every stream in flight would show. Only past it, so that a
 * client must send a megabyte before the gateway sets aside room for the length it declared.
 */
const JOIN_AS_IT_ARRIVES_BYTES = 1024 * 1024;

/** True when the request carries a body to read. */
export function hasBody(request: IncomingMessage): boolean {
  if (BODYLESS.has(request.method ?? 'GET')) return false;
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Reads the body and calls `done` once: with the bytes, or with the refusal to answer. `scan` sees each chunk as
 * it arrives (request-body.ts's scanner, so a body is never parsed in one long turn of the loop); a GatewayError
 * it throws refuses the body at once, the rest unread. A client that goes away mid-body calls nothing (its
 * connection's close finishes the request).
 */
export function readBody(
  request: IncomingMessage,
  limit: number,
  scan: (chunk: Buffer) => void,
  done: (error: GatewayError | null, body: Buffer | undefined) => void,
): void {
  const declared = Number(request.headers['content-length']);
  if (declared > limit) {
    done(tooLarge(), undefined);
    return;
  }
  const chunks: Buffer[] = [];
  /** A big body's one buffer, filled as chunks arrive (see JOIN_AS_IT_ARRIVES_BYTES). */
  let whole: Buffer | null = null;
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
    try {
      scan(chunk);
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      stop();
      settled = true;
      done(error, undefined);
      return;
    }
    if (whole !== null) {
      chunk.copy(whole, received - chunk.length);
      return;
    }
    chunks.push(chunk);
    if (received >= JOIN_AS_IT_ARRIVES_BYTES) {
      // A body without a declared length (chunked encoding) may grow to the bound: room for that much, of which
      // only the pages written are ever resident.
      whole = Buffer.allocUnsafe(Number.isNaN(declared) ? limit : Math.max(declared, received));
      let at = 0;
      for (const earlier of chunks) at += earlier.copy(whole, at);
      chunks.length = 0;
    }
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
    if (whole !== null) done(null, whole.subarray(0, received));
    else done(null, chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received));
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
