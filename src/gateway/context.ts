// What the gateway's plugins share, built once at start by the assembly (plugins/index.ts) and handed to each
// plugin as an option: the frozen configuration, the routing table, one dispatcher per upstream, the metrics and
// records writer, the key scrubber, and the fixed list of sinks every finished request goes to. The one mutable
// part is `state`, the gateway's run state; plugins depend on this object, never on each other's decorators.
import type { Server } from 'node:http';
import type { Dispatcher } from 'undici';
import type { RecordsWriter } from '../shared/records-writer.js';
import type { GatewayConfig, ResolvedUpstream } from './config/config-resolve.js';
import type { KeyScrubber } from './exchange/key-scrubber.js';
import type { Mirrors } from './exchange/mirrors.js';
import type { LineLog } from './logs/logger.js';
import type { GatewayMetrics } from './metrics/gateway-metrics.js';
import type { RecordSink, RequestRecord } from './records/record.js';
import type { ModelRoutes } from './request-path/model-routes.js';
import type { GatewayState } from './run-state.js';
import type { SessionTable } from './sessions/sessions.js';
import type { SpanReceiving } from './spans/span-receiving.js';

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
