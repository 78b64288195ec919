// Where and how often a run reads its server's own metrics (--server-metrics-url, --server-metrics-interval,
// --no-server-metrics), resolved by src/cli/server-metrics-settings.ts.

/** Seconds between samples unless --server-metrics-interval says otherwise. */
export const DEFAULT_SERVER_METRICS_INTERVAL_S = 1;

export interface ServerMetricsSettings {
  /** --server-metrics-url; undefined: the target's own `/metrics`, used when it answers with vLLM's or SGLang's
   *  names (a tokenmeter gateway's page has neither: give the upstream's URL). */
  readonly url?: string;
  readonly intervalMs: number;
}
