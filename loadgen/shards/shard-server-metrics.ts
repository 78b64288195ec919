// The shards' server metrics as one run's: every shard read the same server's /metrics on the shared t = 0, so
// their samples are joined by time (loadgen/server-metrics/server-series.ts, mergeSeries) and summarized once;
// their GPU figures likewise, per GPU.

import { gpuMetricsFromResult } from '../gpu-metrics/gpu-metrics-json.js';
import { type GpuMetricsRun, mergeGpuRuns } from '../gpu-metrics/gpu-tracks.js';
import {
  type ServerMetricsRun,
  serverMetricsFromResult,
  serverMetricsRun,
} from '../server-metrics/server-metrics-json.js';
import { mergeSeries } from '../server-metrics/server-series.js';
import type { ShardRun } from './shard-results.js';

/** Every shard's server series merged; a shard's "none" when no shard had any; undefined when none tried. */
export function mergedServerMetrics(runs: readonly ShardRun[]): ServerMetricsRun | undefined {
  const saved = runs.map((run) => serverMetricsFromResult(run.result.json));
  const series = saved.flatMap((s) => (s?.available === true ? [s.series] : []));
  const merged = mergeSeries(series);
  if (merged !== null) return serverMetricsRun(merged, merged.url, '');
  const none = saved.find((s) => s !== undefined);
  return none;
}

/** Every shard's GPU figures merged (loadgen/gpu-metrics/gpu-tracks.ts, mergeGpuRuns): a GPU several shards read
 *  counted once, different GPUs summed; undefined when no shard has any. */
export function mergedGpuMetrics(runs: readonly ShardRun[]): GpuMetricsRun | undefined {
  return mergeGpuRuns(runs.flatMap((run) => gpuMetricsFromResult(run.result.json) ?? []));
}
