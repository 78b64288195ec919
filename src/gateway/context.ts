// What the gateway's plugins share, built once at start by app.ts and handed to each plugin as an option: the
// resolved configuration, the routing table, one dispatcher per upstream, and the listeners that receive each
// finished request (records, metrics). Plugins depend on this object, never on each other's decorators.
import type { AddressInfo } from 'node:net';
import type { Dispatcher } from 'undici';
import type { PathFix } from './client-path.js';
import type { GatewayConfig, ResolvedUpstream } from './config-resolve.js';
import type { RequestMeasurement } from './measurement.js';
import type { ModelRoutes } from './model-routes.js';
import type { RequestRecord } from './record.js';
import type { RecordsWriter } from './records-writer.js';

export type RecordListener = (record: RequestRecord, measurement: RequestMeasurement) => void;

export interface GatewayContext {
  readonly config: GatewayConfig;
  readonly routes: ModelRoutes;
  readonly dispatchers: ReadonlyMap<ResolvedUpstream, Dispatcher>;
  readonly recordListeners: RecordListener[];
  readonly pathFixListeners: ((fix: PathFix) => void)[];
  readonly requestListeners: (() => void)[];
  /** Set when shutdown begins: new requests are refused, in-flight ones finish. */
  shuttingDown: boolean;
  /** Set when shutdown cuts the connections still open: what they carried is truncated, not abandoned. */
  cuttingConnections: boolean;
  inFlight: number;
  /** The records file writer, when records are written (its counters feed /metrics). */
  records: RecordsWriter | null;
  /** Where /metrics listens when it has its own port (metrics.port), once the gateway is ready. */
  metricsAddress: AddressInfo | null;
}
