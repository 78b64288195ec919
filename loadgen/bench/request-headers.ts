// The headers every request of a run carries, in the backend's own form: `Authorization: Bearer KEY` for the
// OpenAI protocols, `x-api-key: KEY` plus `anthropic-version` for Anthropic's (which answers 401 to a bearer
// token). Used for the run and for the /v1/models lookup before it, so both authenticate alike.

import { type Backend, backendProtocol } from '../../src/protocols/backends.js';
import { keyHeader } from '../../src/protocols/index.js';

/** content-type, the protocol's version header, then --header (may override those), then the key. */
export function requestHeaders(
  backend: Backend,
  key: string | undefined,
  extra: Readonly<Record<string, string>>,
): Record<string, string> {
  const auth = backendProtocol(backend).auth;
  const { versionHeader } = auth;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(versionHeader === null ? {} : { [versionHeader.name]: versionHeader.value }),
    ...extra,
  };
  if (key === undefined) return headers;
  const { name, value } = keyHeader(auth, key);
  headers[name] = value;
  return headers;
}
