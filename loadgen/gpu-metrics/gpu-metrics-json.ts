// `tokenmeter.gpu_metrics` in the result JSON and back, and vLLM's energy keys at the top level. The tracks are
// saved (per GPU its times and raw figures) with the sources and notes; the summary is derived from them and
// saved for notebooks; readers (merge, report, HTML) rebuild the tracks and recompute the summary. vLLM's keys
// are those of its bench's NVML meter (vllm/benchmarks/lib/energy.py, after the pinned commit): written when the
// run has an energy, as vLLM writes them only then.

import { isJsonObject, type JsonValue, type JsonValueObject } from '../../src/shared/json-object.js';
import { type GpuSummary, summarizeGpus } from './gpu-summary.js';
import {
  type GpuMetricsRun,
  type GpuSource,
  type GpuSourceInfo,
  type GpuTrack,
  gpuIdentity,
} from './gpu-tracks.js';

export const GPU_METRICS_KEY = 'gpu_metrics';

const round = (value: number | null, places: number): number | null =>
  value === null ? null : Number(value.toFixed(places));

function trackJson(track: GpuTrack): JsonValue {
  return {
    ...gpuIdentity(track),
    t_s: track.tS.map((t) => round(t, 3)),
    power_w: [...track.powerW],
    energy_mj: [...track.energyMj],
    util_pct: [...track.utilPct],
    mem_used_mib: [...track.memUsedMiB],
    mem_total_mib: track.memTotalMiB,
  };
}

function summaryJson(summary: GpuSummary): JsonValue {
  const t = summary.total;
  return {
    gpus: summary.gpus.map((g) => ({
      source: g.source,
      key: g.key,
      index: g.index,
      model: g.model,
      samples: g.samples,
      energy_j: round(g.energyJ, 3),
      energy_from: g.energyFrom,
      energy_duration_s: round(g.energySpanS, 3),
      mean_power_w: round(g.meanPowerW, 3),
      max_power_w: g.maxPowerW,
      mean_util_pct: round(g.meanUtilPct, 2),
      max_util_pct: g.maxUtilPct,
      max_mem_used_mib: g.maxMemUsedMiB,
      mem_total_mib: g.memTotalMiB,
    })),
    total: {
      gpus: t.gpus,
      energy_j: round(t.energyJ, 3),
      energy_duration_s: round(t.energySpanS, 3),
      mean_power_w: round(t.meanPowerW, 3),
      max_power_w: round(t.maxPowerW, 3),
      mean_util_pct: round(t.meanUtilPct, 2),
      max_mem_used_mib: t.maxMemUsedMiB,
      mem_total_mib: t.memTotalMiB,
      output_tokens: t.outputTokens,
      energy_per_output_token_j: round(t.energyPerOutputTokenJ, 6),
      output_tokens_per_j: round(t.outputTokensPerJ, 6),
    },
  };
}

export function gpuMetricsJson(run: GpuMetricsRun, outputTokens: number): JsonValue {
  return {
    sources: run.sources.map((s) => ({
      source: s.source,
      url: s.url,
      interval_s: s.intervalMs / 1000,
      samples: s.samples,
      failed: s.failed,
    })),
    notes: [...run.notes],
    summary: summaryJson(summarizeGpus(run.gpus, outputTokens)),
    gpus: run.gpus.map(trackJson),
  };
}

/** vLLM's keys for a run's GPU energy; none when the run has no energy. */
export function vllmEnergyKeys(
  run: GpuMetricsRun | undefined,
  outputTokens: number,
): Record<string, JsonValue> {
  if (run === undefined) return {};
  const summary = summarizeGpus(run.gpus, outputTokens);
  const { total } = summary;
  if (total.energyJ === null || total.energySpanS <= 0) return {};
  const withEnergy = summary.gpus.filter((g) => g.energyJ !== null);
  return {
    // vLLM's are NVML's physical indices; these are the driver's indices the page or nvidia-smi gave.
    energy_gpu_ids: withEnergy.map((g) => (/^\d+$/.test(g.index) ? Number(g.index) : g.index)),
    gpu_energy_j: total.energyJ,
    gpu_energy_duration_s: total.energySpanS,
    gpu_avg_power_w: total.meanPowerW,
    gpu_energy_per_output_token_j: total.energyPerOutputTokenJ,
  };
}

const numbers = (value: JsonValue | undefined): (number | null)[] =>
  Array.isArray(value) ? value.map((v) => (typeof v === 'number' ? v : null)) : [];
const text = (value: JsonValue | undefined): string | null => (typeof value === 'string' ? value : null);
const objects = (value: JsonValue | undefined): JsonValueObject[] =>
  Array.isArray(value) ? value.filter((v): v is JsonValueObject => isJsonObject(v)) : [];
const sourceOf = (value: JsonValue | undefined): GpuSource =>
  value === 'nvidia-smi' ? 'nvidia-smi' : 'dcgm';

function trackFrom(json: JsonValueObject): GpuTrack {
  const tS = numbers(json['t_s']).map((t) => t ?? 0);
  const index = text(json['index']) ?? '';
  return {
    source: sourceOf(json['source']),
    key: text(json['key']) ?? index,
    index,
    uuid: text(json['uuid']),
    model: text(json['model']),
    host: text(json['host']),
    tS,
    powerW: numbers(json['power_w']),
    energyMj: numbers(json['energy_mj']),
    utilPct: numbers(json['util_pct']),
    memUsedMiB: numbers(json['mem_used_mib']),
    memTotalMiB: typeof json['mem_total_mib'] === 'number' ? json['mem_total_mib'] : null,
  };
}

/** The run's GPU figures from its result JSON; undefined when the file has none (an older file, or none read). */
export function gpuMetricsFromResult(json: JsonValueObject): GpuMetricsRun | undefined {
  const tokenmeter = json['tokenmeter'];
  const saved = isJsonObject(tokenmeter) ? tokenmeter[GPU_METRICS_KEY] : undefined;
  if (!isJsonObject(saved)) return undefined;
  const sources: GpuSourceInfo[] = objects(saved['sources']).map((s) => ({
    source: sourceOf(s['source']),
    url: text(s['url']) ?? '',
    intervalMs: (typeof s['interval_s'] === 'number' ? s['interval_s'] : 1) * 1000,
    samples: typeof s['samples'] === 'number' ? s['samples'] : 0,
    failed: typeof s['failed'] === 'number' ? s['failed'] : 0,
  }));
  const gpus = objects(saved['gpus']).map(trackFrom);
  const notes = (Array.isArray(saved['notes']) ? saved['notes'] : []).filter(
    (n): n is string => typeof n === 'string',
  );
  return { sources, gpus, notes };
}
