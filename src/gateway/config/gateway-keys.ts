// Gateway keys: what clients must present when the gateway is not open. Stored as SHA-256 digests (a plain key
// in the config is hashed at start) so comparison is constant-time over equal-length digests and the plain key
// is never kept in memory longer than start-up.
import { createHash, timingSafeEqual } from 'node:crypto';
import { UserFacingError } from '../../shared/user-facing-error.js';

export interface GatewayKey {
  readonly digest: Buffer;
}

export function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

export function parseGatewayKey(raw: string, field: string): GatewayKey {
  const hashed = /^sha256:([0-9a-f]*)$/i.exec(raw);
  if (!hashed) return { digest: sha256(raw) };
  const hex = hashed[1] ?? '';
  if (hex.length !== 64) {
    throw new UserFacingError(
      `${field}: a hashed key is sha256: followed by 64 hex digits (got ${hex.length})`,
    );
  }
  return { digest: Buffer.from(hex, 'hex') };
}

/** Constant-time over every configured key: the time taken does not reveal which key, or how much, matched. */
export function matchesGatewayKey(presented: string, keys: readonly GatewayKey[]): boolean {
  const digest = sha256(presented);
  let matched = false;
  for (const key of keys) matched = timingSafeEqual(digest, key.digest) || matched;
  return matched;
}
