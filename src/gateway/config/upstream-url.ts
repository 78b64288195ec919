// Upstream base URLs arrive in every shape people copy from provider docs: with or without `/v1`, with or without
// a trailing slash, sometimes the full endpoint. Normalizing once at start guarantees that every upstream request
// path is `<origin><base path>/v1/<endpoint>` with `/v1` exactly once (the `/v1/v1` bug other gateways shipped).
import { UserFacingError } from '../../shared/user-facing-error.js';

export interface UpstreamBase {
  /** `https://taotoken.net` (scheme, host, port; no path). */
  readonly origin: string;
  /** Path before `/v1`, without trailing slash: `''` or `/api`. */
  readonly basePath: string;
  /** `<basePath>/v1`: every API path is appended to this. */
  readonly apiPrefix: string;
  /** `<origin><basePath>`, for messages. */
  readonly display: string;
}

// Endpoint suffixes a user may paste by mistake; stripped (after `/v1`) so only the base remains.
const PASTED_ENDPOINTS = [
  '/chat/completions',
  '/completions',
  '/messages',
  '/responses',
  '/embeddings',
  '/models',
];

export function normalizeUpstreamBase(raw: string, field: string): UpstreamBase {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UserFacingError(
      `${field}: '${raw}' is not a URL; write it like http://127.0.0.1:8000/v1 or https://taotoken.net/api`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UserFacingError(`${field}: '${raw}' must start with http:// or https://`);
  }
  if (url.search !== '' || url.hash !== '') {
    throw new UserFacingError(`${field}: '${raw}' must not carry a query string or fragment`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UserFacingError(`${field}: put credentials in a key variable or file, not in the URL`);
  }
  let path = url.pathname.replace(/\/{2,}/g, '/').replace(/\/+$/, '');
  for (const suffix of PASTED_ENDPOINTS) {
    if (path.endsWith(`/v1${suffix}`)) path = path.slice(0, -suffix.length);
  }
  while (path.endsWith('/v1')) path = path.slice(0, -3);
  return { origin: url.origin, basePath: path, apiPrefix: `${path}/v1`, display: `${url.origin}${path}` };
}
