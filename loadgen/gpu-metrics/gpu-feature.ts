// The GPUs' figures through a run (--gpu-metrics-url, --nvidia-smi) as a run feature (loadgen/feature.ts): the
// sources are sampled from before the first request to after the drain (gpu-sampling.ts), put on the run's clock
// (gpu-tracks.ts), shown in the report's GPU section (gpu-section.ts) and saved with vLLM's energy keys
// (`tokenmeter.gpu_metrics` and vLLM's own, written by loadgen/report/result-json.ts from the vLLM sections). The
// shards' figures merge per GPU: one several shards read counted once, different GPUs summed.

import type { RunFeature } from '../feature.js';
import { gpuMetricsFromResult } from './gpu-metrics-json.js';
import type { GpuMetricsSettings } from './gpu-metrics-settings.js';
import { gpuPageSection } from './gpu-panel.js';
import { GpuSampling } from './gpu-sampling.js';
import { formatGpuSection } from './gpu-section.js';
import { type GpuMetricsRun, mergeGpuRuns } from './gpu-tracks.js';

export const gpuFeature: RunFeature<
  GpuMetricsSettings,
  GpuMetricsRun,
  GpuMetricsRun,
  { readonly gpuMetrics?: GpuMetricsSettings | null }
> = {
  name: 'gpu metrics',
  settingsOf: (run) => run.gpuMetrics ?? undefined,
  async start(settings) {
    const sampling = await GpuSampling.start(settings);
    let onRunClock: ((runStartedAtMs: number) => GpuMetricsRun | undefined) | undefined;
    return {
      stop: async () => {
        onRunClock = await sampling.finish();
      },
      seen: (runStartedAtMs) => onRunClock?.(runStartedAtMs),
    };
  },
  aggregate: (_settings, _records, seen) => seen,
  merge: mergeGpuRuns,
  // Its keys go with vLLM's energy keys, which vLLM places itself (the vllm hook below).
  json: { write: () => ({}), read: gpuMetricsFromResult },
  report: { slot: 'section', lines: (run, { outputTokens }) => formatGpuSection(run, outputTokens) },
  html: { slot: 'after-charts', section: (run, { outputTokens }) => gpuPageSection(run, outputTokens) },
  vllm: (run) => ({ gpu: run }),
};
