// The /metrics answer, wherever it is served (the API port, or metrics.port): Prometheus text from the gateway's
// registry, or a 401 that says nothing about the traffic when metrics.tokenEnv is set and the scraper did not
// send that token as `Authorization: Bearer <token>` (Prometheus: `authorization: { credentials_file: ... }`).

import type { GatewayKey } from '../config/gateway-keys.js';
import { bearerToken, matchesGatewayKey } from '../config/gateway-keys.js';

/**
 * Where the exposition comes from: the gateway's own registry, or in a cluster worker the whole gateway's,
 * aggregated by the primary (src/gateway/cluster/worker.ts). A prom-client Registry is one.
 */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

export interface MetricsPage {
  readonly status: 200 | 401;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const UNAUTHORIZED: MetricsPage = {
  status: 401,
  headers: {
    'content-type': 'text/plain; charset=utf-8',
    'www-authenticate': 'Bearer realm="tokenmeter metrics"',
  },
  body: 'send the metrics token (metrics.tokenEnv) as "Authorization: Bearer <token>"\n',
};

export async function metricsPage(
  source: MetricsSource,
  token: GatewayKey | null,
  authorization: string | undefined,
): Promise<MetricsPage> {
  if (token !== null) {
    const presented = bearerToken(authorization);
    if (presented === undefined || !matchesGatewayKey(presented, [token])) return UNAUTHORIZED;
  }
  return { status: 200, headers: { 'content-type': source.contentType }, body: await source.metrics() };
}
