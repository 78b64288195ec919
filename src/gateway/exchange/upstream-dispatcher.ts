// The HTTP client side: one undici Agent per upstream, built once at start with that upstream's timeouts,
// connection limit and CA bundle. TLS certificates are always verified, with a configured CA trusted in addition
// to the system's roots. Requests are timed by the MeteredHandler they are dispatched with, not here. The Agent's
// sockets drop an unsolicited `100 Continue` (connectorIgnoringContinue, below).
import type { Socket } from 'node:net';
import { rootCertificates } from 'node:tls';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import type { ResolvedUpstream } from '../config/config-resolve.js';

export function buildUpstreamDispatcher(upstream: ResolvedUpstream): Dispatcher {
  const { timeouts } = upstream;
  return new Agent({
    // undici's own connector, its sockets made to ignore an unsolicited 100 Continue (below).
    connect: connectorIgnoringContinue({
      timeout: timeouts.connectMs,
      rejectUnauthorized: true,
      // A configured CA is trusted in addition to the system's roots, not instead of them.
      ...(upstream.ca === null ? {} : { ca: [...rootCertificates, upstream.ca] }),
    }),
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.idleMs,
    ...(upstream.maxConnections > 0 ? { connections: upstream.maxConnections } : {}),
    keepAliveTimeout: 30_000,
  });
}

// An upstream that sends `100 Continue` the gateway never asked for (it sends no `Expect`) is still speaking HTTP:
// RFC 9110 15.2 has a client parse and ignore any 1xx it did not expect. undici 7's HTTP/1.1 client passes other
// 1xx answers (102, 103) to the handler, which ignores them (src/measure/metered-handler.ts), but destroys the
// socket on a 100 ("bad response", client-h1.js), so the request failed with a 502 although the final answer
// followed. No option changes that, and a dispatch handler never sees it: the connection is where it can be
// handled. So each upstream socket (undici's own connector, wrapped) drops a 100's head, `HTTP/1.x 100 ...` up to
// its blank line, where a response begins: after a request's head was written and before the first byte of an
// answer to it. The final answer that follows then reaches undici as if it came alone, and is delivered and
// measured. Nothing else is changed, and a 100 anywhere but where a response begins is left to undici.
//
// Where a response begins is known from the writes: undici writes each request's head as one latin1 string
// starting with its request line, the only write of that form. Reads are undici's `socket.read()` (its parser
// pulls on 'readable'); the wrapper strips the head there and keeps a head cut by the network until its end comes.
/** `METHOD path HTTP/1.1\r\n`: the start of a request head as undici writes it. */
const REQUEST_LINE = /^[A-Z]+ \S+ HTTP\/1\.1\r\n/;
const CONTINUE = Buffer.from('HTTP/1.1 100');
/** The bytes that must be read before a response's start can be told from a 100's. */
const DECIDE_BYTES = CONTINUE.length;
const HEAD_END = Buffer.from('\r\n\r\n');

/** Whether `bytes` (at least DECIDE_BYTES) start with a 100's status line, HTTP/1.0 or 1.1. */
function startsWithContinue(bytes: Buffer): boolean {
  // `HTTP/1.` then `0` or `1`, then ` 100`.
  return (
    bytes.compare(CONTINUE, 0, 7, 0, 7) === 0 &&
    (bytes[7] === 0x30 || bytes[7] === 0x31) &&
    bytes.compare(CONTINUE, 8, DECIDE_BYTES, 8, DECIDE_BYTES) === 0
  );
}

/** A prefix of a 100's status line, shorter than DECIDE_BYTES (a read cut inside it). */
function mayStartContinue(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    if (i === 7 ? byte !== 0x30 && byte !== 0x31 : byte !== CONTINUE[i]) return false;
  }
  return true;
}

/** Makes `socket` drop unsolicited 100 heads where a response begins (see above). */
export function ignoreInterimContinue(socket: Socket): void {
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  const read = socket.read.bind(socket);
  /** A request's head went out and no byte of its answer has been read yet. */
  let responseStarts = false;
  /** The start of a response held until it can be told from a 100, or a 100's head waiting for its end. */
  let held: Buffer | null = null;
  socket.write = ((...args: unknown[]) => {
    if (typeof args[0] === 'string' && REQUEST_LINE.test(args[0])) responseStarts = true;
    return write(...args);
  }) as Socket['write'];
  socket.read = ((size?: number) => {
    if (!responseStarts) return read(size);
    for (;;) {
      const chunk = read(size) as Buffer | null;
      if (chunk === null) return null;
      let bytes = held === null ? chunk : Buffer.concat([held, chunk]);
      held = null;
      // Drop every 100 at the start (an upstream may send more than one), then pass on the rest.
      for (;;) {
        if (bytes.length < DECIDE_BYTES) {
          if (!mayStartContinue(bytes)) break;
          held = bytes;
          break;
        }
        if (!startsWithContinue(bytes)) break;
        const end = bytes.indexOf(HEAD_END);
        if (end < 0) {
          held = bytes;
          break;
        }
        bytes = bytes.subarray(end + HEAD_END.length);
      }
      if (held !== null) continue;
      if (bytes.length === 0) continue;
      responseStarts = false;
      return bytes;
    }
  }) as Socket['read'];
}

/** undici's connector with `options`, its sockets made to ignore unsolicited 100s. */
export function connectorIgnoringContinue(options: buildConnector.BuildOptions): buildConnector.connector {
  const connect = buildConnector(options);
  return (target, callback) =>
    connect(target, (...result) => {
      if (result[0] === null) ignoreInterimContinue(result[1]);
      callback(...result);
    });
}
