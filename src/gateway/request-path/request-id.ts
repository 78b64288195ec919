// Every request's id, sent back in `x-request-id` on every answer and upstream with the request: the client's own
// when it sent a usable one, so a client can find the record and log line of any request it made.
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

const USABLE_ID = /^[\w.:@/+=-]{1,128}$/;

/** The client's `x-request-id` when it is short and plain (no log injection), else a new UUID. */
export function requestIdFrom(headers: IncomingHttpHeaders): string {
  const given = headers['x-request-id'];
  return typeof given === 'string' && USABLE_ID.test(given) ? given : randomUUID();
}
