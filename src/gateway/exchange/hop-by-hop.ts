// Hop-by-hop headers (RFC 9110 7.6.1): they describe one connection, the client's or the upstream's, and are
// never forwarded, in either direction. Besides the fixed names, a sender may declare any header hop-by-hop by
// listing it in its Connection header (`connection: keep-alive, x-upstream-trace`). The client's credentials are
// not forwarded either, and are named here once (CREDENTIAL_HEADERS).
import type { IncomingHttpHeaders } from 'node:http';

/**
 * The fixed hop-by-hop names: Connection and what it governs (Keep-Alive, and the obsolete Proxy-Connection),
 * the transfer codings of the message (Transfer-Encoding, TE, Trailer; RFC 9112 6-7), a protocol switch on this
 * connection (Upgrade), and a proxy's own authentication (Proxy-Authenticate, Proxy-Authorization, RFC 9110 11.7).
 */
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/**
 * The request headers a credential travels in, in the LLM APIs the gateway fronts. Stated once: the gateway never
 * forwards them upstream (below), and its logger redacts them wherever a log line carries headers.
 */
export const CREDENTIAL_HEADERS: readonly string[] = Object.freeze([
  'authorization',
  'x-api-key', // Anthropic
  'api-key', // Azure OpenAI
  'x-goog-api-key', // Gemini
  'cookie',
  'proxy-authorization',
]);

/**
 * Request headers the gateway never forwards besides the hop-by-hop ones:
 * - `expect`: answered by the gateway's own server (Node's http server sends `100 Continue` itself when no
 *   'checkContinue' listener exists), and the gateway sends the upstream a body it already holds;
 * - `host`, `content-length`: the upstream request's own, from its URL and its (possibly rewritten) body;
 * - the client's credentials (CREDENTIAL_HEADERS): they open the gateway, never the upstream, which gets the
 *   gateway's upstream key instead;
 * - `traceparent`, `tracestate`: the upstream's parent is the gateway's span, not the client's, so the proxy
 *   writes its own traceparent, and tracestate only when the client's traceparent was valid;
 * - `accept-encoding`: the gateway asks for what its meter and key scrubber read (`identity`, exchange.ts); the
 *   client's `gzip, deflate` (the OpenAI SDK's default) would invite an answer they must decode first. The client
 *   then gets the answer uncompressed, which every client accepts.
 */
const NOT_FORWARDED_REQUEST: ReadonlySet<string> = new Set([
  ...HOP_BY_HOP,
  'expect',
  'host',
  'content-length',
  'traceparent',
  'tracestate',
  'accept-encoding',
  ...CREDENTIAL_HEADERS,
]);

const NOT_FORWARDED_RESPONSE: ReadonlySet<string> = new Set(HOP_BY_HOP);

const NONE: readonly string[] = [];

/** The header names a Connection header value lists, lower-cased (none for the usual bare keep-alive or close). */
function connectionListed(connection: string | string[] | number | undefined): readonly string[] {
  if (connection === undefined || connection === 'keep-alive' || connection === 'close') return NONE;
  return (Array.isArray(connection) ? connection.join(',') : String(connection))
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
}

/**
 * A fresh copy of `headers` without the names in `never` and those its Connection header lists. Built by copying
 * rather than by deleting from a copy: deleting turns the object into a slow dictionary, once per request.
 */
function copyForwardable(
  headers: IncomingHttpHeaders,
  never: ReadonlySet<string>,
): Record<string, string | string[]> {
  const listed = connectionListed(headers.connection);
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    // Node and undici hand over lower-cased names; a caller's own object may not.
    const lower = name.toLowerCase();
    if (never.has(lower) || (listed.length > 0 && listed.includes(lower))) continue;
    out[name] = value;
  }
  return out;
}

/** The upstream's response headers that may go to the client: without the hop-by-hop set and what its Connection names. */
export function forwardableResponseHeaders(upstream: IncomingHttpHeaders): Record<string, string | string[]> {
  return copyForwardable(upstream, NOT_FORWARDED_RESPONSE);
}

/**
 * The client's request headers that may go upstream, as a fresh object: without the hop-by-hop set, the headers
 * the client's Connection header names, `expect`, `host`, `content-length` and the client's credentials.
 */
export function forwardableRequestHeaders(client: IncomingHttpHeaders): Record<string, string | string[]> {
  return copyForwardable(client, NOT_FORWARDED_REQUEST);
}
