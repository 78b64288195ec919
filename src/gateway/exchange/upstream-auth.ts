// Puts the upstream's key on an outgoing request the way its protocol expects (src/protocols). The client's own
// credentials (`authorization`, `x-api-key`) were removed before, so only the gateway's key ever reaches the
// upstream.
import { keyHeader, type UpstreamAuth } from '../../protocols/index.js';

export function applyUpstreamAuth(
  headers: Record<string | symbol, unknown>,
  auth: UpstreamAuth,
  key: string | null,
): void {
  if (key !== null) {
    const { name, value } = keyHeader(auth, key);
    headers[name] = value;
  }
  // An API that rejects requests without a version header gets the protocol's; clients that send one keep theirs.
  const version = auth.versionHeader;
  if (version !== null && headers[version.name] === undefined) headers[version.name] = version.value;
}
