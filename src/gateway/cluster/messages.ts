// The messages between the primary and its workers over the cluster IPC channel: one table of their shapes, so
// both sides read the same names. Every type starts with `tokenmeter:` so none is mistaken for Node's own cluster
// messages or another library's.
import type { MetricObjectWithValues, MetricValue } from 'prom-client';

/** One worker's registry, as `Registry.getMetricsAsJSON()` gives it: what the primary aggregates. */
export type RegistryJson = MetricObjectWithValues<MetricValue<string>>[];

export type ToWorker =
  /** Begin the gateway's shutdown (readiness fails, delay, drain, grace), as the first signal does alone. */
  | { readonly type: 'tokenmeter:drain'; readonly signal: NodeJS.Signals }
  /** Cut every connection now, as a second signal does alone. */
  | { readonly type: 'tokenmeter:cut'; readonly signal: NodeJS.Signals }
  /** Reopen your records file (the primary got SIGHUP: logrotate renamed the files). */
  | { readonly type: 'tokenmeter:reopen' }
  /** Send your registry as JSON (reply: `tokenmeter:registry`). */
  | { readonly type: 'tokenmeter:registry?'; readonly id: number }
  /** The whole gateway's /metrics text, or why it could not be had, for the scrape `id` this worker asked. */
  | { readonly type: 'tokenmeter:page'; readonly id: number; readonly text?: string; readonly error?: string }
  /** `key` was seen first by this worker in the whole gateway: log its line. */
  | { readonly type: 'tokenmeter:first'; readonly key: string };

export type ToPrimary =
  /** This worker listens; `line` is the line that says where (the primary prints it once for the gateway). */
  | { readonly type: 'tokenmeter:listening'; readonly line: string }
  | {
      readonly type: 'tokenmeter:registry';
      readonly id: number;
      readonly metrics?: RegistryJson;
      readonly error?: string;
      /** The requests this worker is serving as it answers: a report like `tokenmeter:in-flight`. */
      readonly inFlight: number;
    }
  /**
   * The requests this worker is serving, sent when the count changed, at most every IN_FLIGHT_REPORT_MS: what the
   * primary counts lost if this worker dies.
   */
  | { readonly type: 'tokenmeter:in-flight'; readonly count: number }
  /** A scrape arrived here: aggregate every worker's registry (reply: `tokenmeter:page`). */
  | { readonly type: 'tokenmeter:page?'; readonly id: number }
  /** Is `key` new to the whole gateway? (reply, only if so: `tokenmeter:first`). */
  | { readonly type: 'tokenmeter:first?'; readonly key: string };

function isMessage(value: unknown): value is { type: string } {
  return (
    typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'
  );
}

export function toWorker(value: unknown): ToWorker | null {
  return isMessage(value) && value.type.startsWith('tokenmeter:') ? (value as ToWorker) : null;
}

export function toPrimary(value: unknown): ToPrimary | null {
  return isMessage(value) && value.type.startsWith('tokenmeter:') ? (value as ToPrimary) : null;
}

/** The environment variable that tells a worker its slot (1..N): a replacement takes its predecessor's. */
export const WORKER_SLOT_ENV = 'TOKENMETER_WORKER_SLOT';
