// The HTTP client side: one undici Agent per upstream, built once at start with that upstream's timeouts,
// connection limit and CA bundle. TLS certificates are always verified, with a configured CA trusted in addition
// to the system's roots. Requests are timed by the MeteredHandler they are dispatched with, not here.
import { rootCertificates } from 'node:tls';
import { Agent, type Dispatcher } from 'undici';
import type { ResolvedUpstream } from '../config/config-resolve.js';
import { connectorIgnoringContinue } from './interim-continue.js';

export function buildUpstreamDispatcher(upstream: ResolvedUpstream): Dispatcher {
  const { timeouts } = upstream;
  return new Agent({
    // undici's own connector, its sockets made to ignore an unsolicited 100 Continue (interim-continue.ts).
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
