// The gateway's run state (GatewayState), the one mutable part of its context, and how long closing waits for the
// records of what it cut. Apart from context.ts so that the parts the context holds (metrics, mirrors) can read the
// state without importing the context that imports them.

import type { AddressInfo } from 'node:net';

/**
 * How long closing waits, past the grace period, for the records of what it cut: a destroyed socket or a cut copy
 * is finalized a phase or two of the event loop later, so this is far more than it takes and bounds a stuck one.
 */
export const RECORDS_SETTLE_MS = 1000;

/** The gateway's run state, written by the API path (api-path.ts), the metrics port and shutdown. */
export interface GatewayState {
  /**
   * Set on the first SIGTERM/SIGINT: /readyz fails from then on. Requests are still served until the drain
   * begins (after shutdownDelayMs; admission.ts), when new ones are refused and in-flight ones finish.
   */
  shuttingDown: boolean;
  /**
   * Why shutdown cut the connections still open, once it has: what they carried is recorded as truncated (the
   * gateway cut it, not the client), with this as the record's error.
   */
  cutReason: string | null;
  /** Requests received and not yet finished (probes and scrapes excluded). */
  inFlight: number;
  /** Mirror copies sent and not yet finished (src/gateway/exchange/mirrors.ts). */
  mirrorsInFlight: number;
  /** Where /metrics listens when it has its own port (metrics.port), once the gateway is ready. */
  metricsAddress: AddressInfo | null;
  /**
   * performance.now() at which the drain's grace period ends, once the drain began: closing the records file
   * gives up on a file that takes nothing by then (plugins/records.ts), so shutdown ends within its grace.
   */
  graceEndsAt: number | null;
}
