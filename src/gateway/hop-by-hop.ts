// Hop-by-hop response headers (RFC 9110 7.6.1): they describe the upstream's connection, not the client's, and
// must not be forwarded. Besides the fixed names, a sender may declare any header hop-by-hop by listing it in
// its Connection header (`connection: keep-alive, x-upstream-trace`).
import type { OutgoingHttpHeaders } from 'node:http';

const ALWAYS_HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
];

/** Deletes, in place, every hop-by-hop header of `headers`, including those its Connection header names. */
export function deleteHopByHopHeaders(headers: OutgoingHttpHeaders): void {
  const connection = headers['connection'];
  const listed = (Array.isArray(connection) ? connection.join(',') : String(connection ?? ''))
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  for (const name of listed) delete headers[name];
  for (const name of ALWAYS_HOP_BY_HOP) delete headers[name];
}

/** Placeholder until the request-side filter lands: the client's headers minus what never goes upstream. */
export function forwardableRequestHeaders(
  client: Readonly<Record<string, string | string[] | undefined>>,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(client)) {
    if (value !== undefined) out[name] = value;
  }
  for (const name of ['host', 'content-length', 'authorization', 'x-api-key', 'cookie', 'expect'])
    delete out[name];
  deleteHopByHopHeaders(out);
  return out;
}
