// The token of an `Authorization: Bearer <token>` header, read one way wherever the gateway takes one: a client's
// gateway key, the metrics page's token, a server's span export. The scheme is case-insensitive (RFC 7235).

const BEARER = /^Bearer\s+(.+)$/i;

/** The token an Authorization header presents, or undefined when it is absent or not a Bearer credential. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  return BEARER.exec(authorization.trim())?.[1];
}
