// Fetches one gateway's `/metrics` page for `top`. Never throws: a gateway that cannot be reached, answers
// with an error, or is not a tokenmeter gateway becomes a sentence the view shows in that gateway's place.

import { request } from 'undici';
import { errorCode, failureKindOfCode, type NetworkFailureKind } from '../measure/network-failure.js';
import { boundedText } from '../shared/bounded-text.js';
import { type GatewayReading, readGatewayPage } from './gateway-reading.js';

export type Scrape =
  | { readonly ok: true; readonly reading: GatewayReading }
  | { readonly ok: false; readonly url: string; readonly problem: string };

// A gateway's page is tens of kilobytes per model (20 buckets per decade, docs/metrics.md); this bound only
// stops a wrong URL from streaming something unbounded into memory.
const MAX_PAGE_BYTES = 32 * 1024 * 1024;

const WHY: Partial<Record<NetworkFailureKind, string>> = {
  refused: 'connection refused (is the gateway running, and is this its metrics port?)',
  dns: 'the host name does not resolve',
  tls: 'the TLS handshake failed',
  connect_timeout: 'no connection within the timeout',
  headers_timeout: 'no answer within the timeout',
  idle_timeout: 'the page stopped arriving',
  reset: 'the connection was reset',
};

/** `http://host:port` alone means that gateway's `/metrics`; a URL with a path is taken as given. */
export function metricsUrlOf(given: string): string {
  // host:port alone (no scheme) means plain http, as the --url help says.
  const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(given) ? given : `http://${given}`);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/metrics';
  return url.toString();
}

/** `token`: the gateway's metrics token (metrics.tokenEnv), sent as a bearer token; null when /metrics is open. */
export async function scrapeGateway(url: string, timeoutMs: number, token: string | null): Promise<Scrape> {
  try {
    const answer = await request(url, {
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      ...(token === null ? {} : { headers: { authorization: `Bearer ${token}` } }),
    });
    if (answer.statusCode === 401) {
      await answer.body.dump();
      const why =
        token === null ? 'give --metrics-token-env' : 'the token in --metrics-token-env was refused';
      return { ok: false, url, problem: `answered HTTP 401: this /metrics requires a token (${why})` };
    }
    if (answer.statusCode !== 200) {
      await answer.body.dump();
      return { ok: false, url, problem: `answered HTTP ${answer.statusCode}, not a metrics page` };
    }
    const page = await boundedText(answer.body, MAX_PAGE_BYTES);
    if (page === null) return { ok: false, url, problem: `the page is over ${MAX_PAGE_BYTES} bytes` };
    const reading = readGatewayPage(url, performance.now(), page);
    if (reading === null) {
      return { ok: false, url, problem: 'answered, but not with a tokenmeter gateway page' };
    }
    return { ok: true, reading };
  } catch (error) {
    const kind = failureKindOfCode(errorCode(error));
    const why = WHY[kind] ?? (error instanceof Error ? error.message : String(error));
    return { ok: false, url, problem: `cannot reach it: ${why}` };
  }
}
