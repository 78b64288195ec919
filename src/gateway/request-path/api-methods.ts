// The methods the API answers, one list: what OpenAI- and Anthropic-style APIs use (GET, POST, DELETE for files,
// batches and stored responses; PUT and PATCH for the few that update), plus HEAD (Fastify answers it with GET's
// route) and OPTIONS (preflights). Any other method (TRACE, CONNECT's relatives, WebDAV's PROPFIND, MKCOL, LOCK,
// SEARCH, cache PURGE, QUERY...) is answered by the gateway with 405 and `Allow`, and never forwarded: an upstream
// that honours TRACE echoes the request it received, the injected upstream key included.

export const API_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** Routed explicitly; HEAD comes with GET's route. */
export const ROUTED_METHODS = API_METHODS.filter((m) => m !== 'HEAD');

/** The `Allow` header of a 405. */
export const ALLOW = API_METHODS.join(', ');

const ALLOWED: ReadonlySet<string> = new Set(API_METHODS);

export function isApiMethod(method: string): boolean {
  return ALLOWED.has(method);
}
