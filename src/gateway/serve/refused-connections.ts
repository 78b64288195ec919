// Client connections refused because clientLimits.maxConnections were already open (Node closes each as it is
// accepted, unanswered): each is counted in tokenmeter_client_connections_refused_total, and the log says so at
// most once a minute, with how many were refused since its last such line, so a flood cannot flood the log too.
import type { Server } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { LineLog } from '../logs/logger.js';

const LOG_INTERVAL_MS = 60_000;

export function watchRefusedConnections(
  server: Server,
  maxConnections: number,
  counter: { connectionRefused(): void },
  log: LineLog,
): void {
  let loggedAt = Number.NEGATIVE_INFINITY;
  let unlogged = 0;
  server.on('drop', () => {
    counter.connectionRefused();
    unlogged++;
    const now = performance.now();
    if (now - loggedAt < LOG_INTERVAL_MS) return;
    log.warn(
      { refused: unlogged, maxConnections },
      `${unlogged} client connection(s) refused since the last such line: clientLimits.maxConnections (${maxConnections}) were open; raise it or add gateway instances`,
    );
    loggedAt = now;
    unlogged = 0;
  });
}
