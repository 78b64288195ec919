// Where a run reads its GPUs' figures (--gpu-metrics-url, --nvidia-smi, --no-gpu-metrics), resolved by
// src/cli/server-metrics-settings.ts; sampled as often as the server's metrics (--server-metrics-interval).

export interface GpuMetricsSettings {
  /** --gpu-metrics-url: a DCGM exporter's page. */
  readonly url?: string;
  /** nvidia-smi on this machine: 'asked' with --nvidia-smi (its absence is noted), 'auto' when no page was given
   *  (sampled where it is on the PATH, its absence unsaid), 'off' when a page was given without --nvidia-smi. */
  readonly nvidiaSmi: 'asked' | 'auto' | 'off';
  readonly intervalMs: number;
}
