// What the gateway's plugins share, built once at start by the assembly (plugins/index.ts) and handed to each
// plugin as an option: the frozen configuration, the routing table, one dispatcher per upstream, the metrics and
// records writer, the key scrubber, and the fixed list of sinks every finished request goes to. The one mutable
// part is `state`, the gateway's run state; plugins depend on this object, never on each other's decorators.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Dispatcher } from 'undici';
import type { RecordsWriter } from '../shared/records-writer.js';
import type { GatewayConfig, ResolvedUpstream } from './config-resolve.js';
import type { GatewayMetrics } from './gateway-metrics.js';
import type { KeyScrubber } from './key-scrubber.js';
import type { LineLog } from './logger.js';
import type { Mirrors } from './mirror/mirrors.js';
import type { ModelRoutes } from './model-routes.js';
import type { RequestRecord } from './record.js';
import type { SessionTable } from './sessions.js';
import type { SpanReceiving } from './span-receiving.js';

/** Receives each finished request's record: frozen, complete, and all a sink gets (exchange.ts finishes it). */
export type RecordSink = (record: RequestRecord) => void;

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
  /** Mirror copies sent and not yet finished (src/gateway/mirror/mirrors.ts). */
  mirrorsInFlight: number;
  /** Where /metrics listens when it has its own port (metrics.port), once the gateway is ready. */
  metricsAddress: AddressInfo | null;
  /**
   * performance.now() at which the drain's grace period ends, once the drain began: closing the records file
   * gives up on a file that takes nothing by then (plugins/records.ts), so shutdown ends within its grace.
   */
  graceEndsAt: number | null;
}

export interface GatewayContext {
  readonly config: GatewayConfig;
  readonly routes: ModelRoutes;
  readonly dispatchers: ReadonlyMap<ResolvedUpstream, Dispatcher>;
  readonly metrics: GatewayMetrics;
  /** Replaces the upstream keys in what the gateway passes on or writes from an upstream's answer. */
  readonly scrubber: KeyScrubber;
  /** The records file writer, when records are written. */
  readonly records: RecordsWriter<RequestRecord> | null;
  /**
   * Every finished request's record goes to each, in order: metrics, records file, exported span, log line,
   * caller's own; with the span receiver, metrics, exported span, log line, then the wait for the server's span
   * before the records file and the caller's own (spanReceiving).
   */
  readonly sinks: readonly RecordSink[];
  /** The routes' mirror copies in flight: the proxy starts them, closing waits for or cuts them. */
  readonly mirrors: Mirrors;
  /** The built-in span receiver and the records waiting for their server's span (spanReceiver); null = off. */
  readonly spanReceiving: SpanReceiving | null;
  /** The sessions the API path places each request in (sessions.ts). */
  readonly sessions: SessionTable;
  readonly state: GatewayState;
}

/** What starts, serves and stops a built gateway (the Fastify application of plugins/index.ts is one). */
export interface GatewayApp {
  readonly server: Server;
  readonly log: LineLog;
  listen(options: { host: string; port: number }): Promise<string>;
  close(): Promise<void>;
}

/** A built gateway: the application to listen with, and what its parts share. */
export interface Gateway {
  readonly app: GatewayApp;
  readonly context: GatewayContext;
}
