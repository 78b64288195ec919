// Admission: what the gateway does with its clients' connections once it closes (src/gateway/serve/shutdown.ts
// starts the drain after shutdownDelayMs, through the assembly's preClose hook). No connection is kept alive past
// its response: a response not yet started carries `Connection: close`, one already under way (its headers said
// keep-alive) has its connection closed when it ends, so the process exits when the last stream ends rather than
// when clients' idle timers run out. A request that still arrives on a kept-alive connection is not admitted: the
// API path answers it with the gateway's own 503 (with Retry-After, and a record); the gateway's own endpoints
// still answer it, with `Connection: close`. A connection that has sent nothing is closed once it is
// UNUSED_AFTER_MS old (see drain()).
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

/** Seconds a client refused while the gateway drains should wait: long enough for its load balancer to move on. */
export const DRAIN_RETRY_AFTER_S = 1;

/**
 * While draining, a connection that has sent nothing this long after it was accepted is taken as unused and
 * closed. A client sends its request as soon as it connected; one accepted just before the drain still gets the
 * time to send it, and its 503 and record.
 */
export const UNUSED_AFTER_MS = 1000;

export class Admission {
  readonly #server: Server;
  #draining = false;
  /** Responses in progress, so that those not yet started when the drain begins can say `Connection: close`. */
  readonly #open = new Set<ServerResponse>();
  /** Client connections open now, with when each was accepted: the drain closes those that never sent a byte. */
  readonly #connections = new Map<Socket, number>();

  constructor(server: Server) {
    this.#server = server;
    server.on('connection', (socket: Socket) => {
      this.#connections.set(socket, performance.now());
      socket.once('close', () => this.#connections.delete(socket));
    });
  }

  get draining(): boolean {
    return this.#draining;
  }

  /**
   * True when the request may be served; false while draining (its answer then says `Connection: close`). The
   * caller calls release() when the response closes (in the one 'close' listener the request has).
   */
  admit(response: ServerResponse): boolean {
    if (this.#draining) {
      response.setHeader('connection', 'close');
      return false;
    }
    this.#open.add(response);
    return true;
  }

  release(response: ServerResponse): void {
    this.#open.delete(response);
    // Closing the server reaps only the connections idle at that moment; one whose response was already under
    // way becomes idle when it ends (on the next turn), and its client would keep it open.
    if (this.#draining) setImmediate(closeIdleConnections, this.#server);
  }

  /** The gateway closes: no new request is admitted, and no response not yet started keeps its connection. */
  drain(): void {
    this.#draining = true;
    for (const response of this.#open) {
      if (!response.headersSent) response.setHeader('connection', 'close');
    }
    // A connection on which the client has sent nothing yet (an HTTP client's pool can open one and never use it;
    // browsers preconnect) is not idle to Node: closing the server leaves it open, and Node stops checking the
    // header timeout once the server closes, so it held the process until the grace period ran out (the soak's
    // 30 s exits). Nothing was asked on it, so nothing is lost by closing it. This runs in the preClose hook, in the
    // same turn as Fastify's server.close(): no connection is accepted after it. A connection in the middle of a
    // request is left to finish it (and get its 503).
    const now = performance.now();
    for (const [socket, acceptedAt] of this.#connections) {
      if (socket.bytesRead !== 0) continue;
      const closeUnused = (): void => {
        if (socket.bytesRead === 0) socket.destroy();
      };
      const left = acceptedAt + UNUSED_AFTER_MS - now;
      if (left <= 0) closeUnused();
      else setTimeout(closeUnused, left).unref(); // a connection that closes by itself does not wait for it
    }
  }
}

function closeIdleConnections(server: Server): void {
  server.closeIdleConnections();
}
