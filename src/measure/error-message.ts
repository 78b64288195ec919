// Bounds what one bad upstream can put into a record or a log line: long enough for any real provider message.
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../shared/json-bytes.js';

export const MAX_ERROR_MESSAGE_CHARS = 2000;

export function capErrorMessage(message: string): string {
  return message.length > MAX_ERROR_MESSAGE_CHARS ? message.slice(0, MAX_ERROR_MESSAGE_CHARS) : message;
}

/** True when `raw` nests objects or arrays deeper than the request bodies' bound. */
function nestsTooDeep(raw: string | Uint8Array): boolean {
  return nestsDeeperThan(typeof raw === 'string' ? Buffer.from(raw) : raw, MAX_JSON_DEPTH);
}

/**
 * The text of an error value an upstream sent as JSON, capped: its JSON, or the raw text it was parsed from when
 * that nests past the bound. JSON.parse takes any depth (V8's is iterative), but JSON.stringify recurses and gives
 * out at about 10,000 levels, which fit in one SSE event: thrown inside undici's callbacks, that would take the
 * exchange down with no record.
 */
export function errorJsonText(value: unknown, raw: string | Uint8Array): string {
  if (nestsTooDeep(raw)) {
    const text = typeof raw === 'string' ? raw : Buffer.from(raw).toString('utf8');
    return capErrorMessage(text);
  }
  return capErrorMessage(JSON.stringify(value));
}
