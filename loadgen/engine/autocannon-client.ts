// What the closed-loop engine touches on an autocannon client, typed here because @types/autocannon describes
// only the public part and describes the 'headers' event's argument wrongly (it is http-parser-js's info
// object, not a header map). Checked against autocannon 9.0's lib/httpClient.js.

import type { EventEmitter } from 'node:events';

export interface ParserHeadersInfo {
  readonly statusCode: number;
  readonly statusMessage?: string;
  /** Name, value, name, value... as received. */
  readonly headers?: readonly string[];
}

export interface AutocannonClient extends EventEmitter {
  /** Requests written on this connection so far; 0 while the first one is being written. */
  readonly reqsMade: number;
  /**
   * Drops the connection and opens a new one, which sends the next request. Internal to autocannon (no public
   * way exists to give up on a request); used only when our own idle timeout fires.
   */
  _resetConnection?: () => void;
  /**
   * Its http-parser-js parser. autocannon never resets it when a connection is replaced (its own timeout, a
   * socket error, the server closing), so the next response would be parsed as the rest of the cut one; the
   * engine resets it whenever it abandons a response.
   */
  parser?: { type: string; initialize(type: string): void };
}

/** Forgets the half-parsed response of a connection being replaced. */
export function resetParser(client: AutocannonClient): void {
  client.parser?.initialize(client.parser.type);
}

/** Narrows the public type to the internals above, at the one place the engine receives a client. */
export function asAutocannonClient(client: unknown): AutocannonClient {
  return client as AutocannonClient;
}
