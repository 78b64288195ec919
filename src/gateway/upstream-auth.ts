// Puts the upstream's key on an outgoing request the way its protocol expects. The client's own credentials
// (`authorization`, `x-api-key`) were removed before, so only the gateway's key ever reaches the upstream.
import type { UpstreamAuthStyle } from './endpoints.js';

/** Anthropic rejects requests without a version header; clients that send one keep theirs. */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

export function applyUpstreamAuth(
  headers: Record<string | symbol, unknown>,
  style: UpstreamAuthStyle,
  key: string | null,
): void {
  if (style === 'anthropic') {
    if (key !== null) headers['x-api-key'] = key;
    if (headers['anthropic-version'] === undefined) headers['anthropic-version'] = DEFAULT_ANTHROPIC_VERSION;
    return;
  }
  if (key !== null) headers['authorization'] = `Bearer ${key}`;
}
