// What Node's HTTP parser refuses, accounted for. Node (with Fastify's clientError handler) answers such a
// connection itself, 400, 408 or 431, and closes it: an over-long header block, headers or a request not received
// in time, a message whose framing is contradictory or invalid (Transfer-Encoding with Content-Length and the other
// request-smuggling forms, a bad chunk size), or bytes that are not HTTP. Two cases:
// - refused before a request existed (its headers never completed): there is no record, so it is counted in
//   tokenmeter_client_errors_total{reason} instead, once per refusal;
// - refused while its request was under way (a bad chunk in the body): the request has its record, and its
//   outcome is `rejected` with the status the client got (parserRefusal() tells the measurement), not a client
//   abort with status 0. It is not counted again.
// So every refusal is one record or one count, never both, never neither (the soak's ledger adds the counter).
// The connections refused before the parser sees a byte, over clientLimits.maxConnections, are counted here too
// (watchRefusedConnections, at the end).
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { LineLog } from '../logs/logger.js';

export const CLIENT_ERROR_REASONS = [
  'header_overflow',
  'request_timeout',
  'framing',
  'bad_chunk',
  'malformed',
] as const;
export type ClientErrorReason = (typeof CLIENT_ERROR_REASONS)[number];

/** llhttp's codes for a message whose length cannot be trusted: the request-smuggling forms among them. */
const FRAMING_CODES: ReadonlySet<string> = new Set([
  'HPE_INVALID_TRANSFER_ENCODING',
  'HPE_UNEXPECTED_CONTENT_LENGTH',
  'HPE_INVALID_CONTENT_LENGTH',
]);

/** The reason of a parser refusal; null for what is not one (a connection reset by the client). */
export function clientErrorReason(code: string | undefined): ClientErrorReason | null {
  if (code === 'HPE_HEADER_OVERFLOW') return 'header_overflow';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'request_timeout';
  if (code === 'HPE_INVALID_CHUNK_SIZE') return 'bad_chunk';
  if (code !== undefined && FRAMING_CODES.has(code)) return 'framing';
  if (code?.startsWith('HPE_')) return 'malformed';
  return null;
}

/** The status Fastify's clientError handler answers with. */
function refusalStatus(reason: ClientErrorReason): number {
  if (reason === 'request_timeout') return 408;
  return reason === 'header_overflow' ? 431 : 400;
}

/**
 * The parser's refusal of the request under way on `socket` (it destroyed the socket with that error), with the
 * status the client got; null when the socket was not refused. The request timeout has its own wording
 * (plugins/measurement.ts), so it is not one of these.
 */
export function parserRefusal(socket: Socket | null | undefined): { status: number; message: string } | null {
  const code = (socket?.errored as { code?: string } | null | undefined)?.code;
  const reason = clientErrorReason(code);
  if (reason === null || reason === 'request_timeout') return null;
  return {
    status: refusalStatus(reason),
    message: `the request could not be read as HTTP (${code}); the client was answered ${refusalStatus(reason)} and disconnected`,
  };
}

/** Counts each parser refusal that came before any request on its connection (those have no record). */
export function watchClientErrors(
  server: Server,
  counter: { clientError(reason: ClientErrorReason): void },
): void {
  const requestUnderWay = new WeakSet<Socket>();
  server.on('request', (request, response) => {
    const socket = request.socket;
    requestUnderWay.add(socket);
    response.once('close', () => requestUnderWay.delete(socket));
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const reason = clientErrorReason(error.code);
    if (reason === null || requestUnderWay.has(socket)) return;
    // Node's header timeout also closes a connection that never sent a byte: a client's pool opened it and used
    // another (undici does, under load: the soak saw one per ~2,800 requests, 10 s after connecting). No request
    // was refused there, so it is not counted as one.
    if (reason === 'request_timeout' && socket.bytesRead === 0) return;
    counter.clientError(reason);
  });
}

// Client connections refused because clientLimits.maxConnections were already open (Node closes each as it is
// accepted, unanswered): each is counted in tokenmeter_client_connections_refused_total, and the log says so at
// most once a minute, with how many were refused since its last such line, so a flood cannot flood the log too.
const LOG_INTERVAL_MS = 60_000;

export function watchRefusedConnections(
  server: Server,
  maxConnections: number,
  counter: { connectionRefused(): void },
  log: LineLog,
): void {
  let loggedAt = Number.NEGATIVE_INFINITY;
  let unlogged = 0;
  server.on('drop', () => {
    counter.connectionRefused();
    unlogged++;
    const now = performance.now();
    if (now - loggedAt < LOG_INTERVAL_MS) return;
    log.warn(
      { refused: unlogged, maxConnections },
      `${unlogged} client connection(s) refused since the last such line: clientLimits.maxConnections (${maxConnections}) were open; raise it or add gateway instances`,
    );
    loggedAt = now;
    unlogged = 0;
  });
}
