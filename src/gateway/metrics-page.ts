// The /metrics answer, wherever it is served (the API port, or metrics.port): Prometheus text from the gateway's
// registry, or a 401 that says nothing about the traffic when metrics.tokenEnv is set and the scraper did not
// send that token as `Authorization: Bearer <token>` (Prometheus: `authorization: { credentials_file: ... }`).
import type { Registry } from 'prom-client';
import type { GatewayKey } from './gateway-keys.js';
import { matchesGatewayKey } from './gateway-keys.js';

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
  registry: Registry,
  token: GatewayKey | null,
  authorization: string | undefined,
): Promise<MetricsPage> {
  if (token !== null) {
    const presented = /^Bearer\s+(.+)$/i.exec(authorization?.trim() ?? '')?.[1];
    if (presented === undefined || !matchesGatewayKey(presented, [token])) return UNAUTHORIZED;
  }
  return { status: 200, headers: { 'content-type': registry.contentType }, body: await registry.metrics() };
}
