// A run's GPU figures from its tracks (docs/metrics.md, "GPU figures"): per GPU its energy over the run (DCGM's
// energy counter's increase when the page has it, else power integrated over the samples by the trapezoid rule),
// mean power (that energy over the time it covers, as vLLM's gpu_avg_power_w), peak power, utilisation and
// memory; and the total over the GPUs, with energy per output token. A GPU that both DCGM and nvidia-smi read is
// counted once, from DCGM.

import { type GpuIdentity, type GpuTrack, gpuIdentity } from './gpu-tracks.js';

export interface GpuFigures extends GpuIdentity {
  readonly samples: number;
  /** J; null with fewer than two samples of power or of the counter. */
  readonly energyJ: number | null;
  /** Where the energy comes from: DCGM's counter, or power integrated over the samples. */
  readonly energyFrom: 'counter' | 'power' | null;
  /** The seconds the energy covers. */
  readonly energySpanS: number;
  readonly meanPowerW: number | null;
  readonly maxPowerW: number | null;
  readonly meanUtilPct: number | null;
  readonly maxUtilPct: number | null;
  readonly maxMemUsedMiB: number | null;
  readonly memTotalMiB: number | null;
}

export interface GpuTotals {
  readonly gpus: number;
  /** Summed over the GPUs with an energy; null when none has one. */
  readonly energyJ: number | null;
  /** The longest span a GPU's energy covers. */
  readonly energySpanS: number;
  readonly meanPowerW: number | null;
  /** The highest sum of the GPUs' power read at one instant (one page, one nvidia-smi tick). */
  readonly maxPowerW: number | null;
  readonly meanUtilPct: number | null;
  readonly maxMemUsedMiB: number | null;
  readonly memTotalMiB: number | null;
  readonly outputTokens: number;
  /** J per output token; null without energy or without output tokens. */
  readonly energyPerOutputTokenJ: number | null;
  readonly outputTokensPerJ: number | null;
}

export interface GpuSummary {
  readonly gpus: readonly GpuFigures[];
  readonly total: GpuTotals;
}

const known = (values: readonly (number | null)[]): number[] => values.filter((v): v is number => v !== null);
const mean = (values: readonly number[]): number | null =>
  values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
const max = (values: readonly number[]): number | null => (values.length === 0 ? null : Math.max(...values));
const sumOrNull = (values: readonly (number | null)[]): number | null => {
  const list = known(values);
  return list.length === 0 ? null : list.reduce((a, b) => a + b, 0);
};

/** The counter's increase between its first and last sample; null with fewer than two, or after a reset. */
function counterEnergy(track: GpuTrack): { joules: number; spanS: number } | null {
  const at = track.energyMj.flatMap((mj, i) => (mj === null ? [] : [{ mj, t: track.tS[i] as number }]));
  const first = at[0];
  const last = at.at(-1);
  if (first === undefined || last === undefined || at.length < 2 || last.mj < first.mj) return null;
  // The span from the earliest sample to the latest: merged shards' samples are in the counter's order.
  const times = at.map((a) => a.t);
  return { joules: (last.mj - first.mj) / 1000, spanS: Math.max(...times) - Math.min(...times) };
}

/** Power integrated over consecutive samples that both have it (trapezoid rule). */
function integratedEnergy(track: GpuTrack): { joules: number; spanS: number } | null {
  let joules = 0;
  let spanS = 0;
  let pairs = 0;
  for (let i = 1; i < track.tS.length; i++) {
    const a = track.powerW[i - 1];
    const b = track.powerW[i];
    if (a == null || b == null) continue;
    const dt = (track.tS[i] as number) - (track.tS[i - 1] as number);
    joules += ((a + b) / 2) * dt;
    spanS += dt;
    pairs++;
  }
  return pairs === 0 ? null : { joules, spanS };
}

export function gpuFigures(track: GpuTrack): GpuFigures {
  const counter = counterEnergy(track);
  const energy = counter ?? integratedEnergy(track);
  const power = known(track.powerW);
  const util = known(track.utilPct);
  return {
    ...gpuIdentity(track),
    samples: track.tS.length,
    energyJ: energy?.joules ?? null,
    energyFrom: counter !== null ? 'counter' : energy !== null ? 'power' : null,
    energySpanS: energy?.spanS ?? 0,
    meanPowerW: energy !== null && energy.spanS > 0 ? energy.joules / energy.spanS : mean(power),
    maxPowerW: max(power),
    meanUtilPct: mean(util),
    maxUtilPct: max(util),
    maxMemUsedMiB: max(known(track.memUsedMiB)),
    memTotalMiB: track.memTotalMiB,
  };
}

/** The highest summed power of the GPUs read at the same instant. */
function peakSummedPower(tracks: readonly GpuTrack[]): number | null {
  const byInstant = new Map<number, number>();
  for (const track of tracks) {
    track.tS.forEach((t, i) => {
      const w = track.powerW[i];
      if (w != null) byInstant.set(t, (byInstant.get(t) ?? 0) + w);
    });
  }
  return max([...byInstant.values()]);
}

export function summarizeGpus(tracks: readonly GpuTrack[], outputTokens: number): GpuSummary {
  const fromDcgm = new Set(tracks.filter((t) => t.source === 'dcgm').map((t) => t.key));
  const counted = tracks.filter((t) => t.source === 'dcgm' || !fromDcgm.has(t.key));
  const gpus = counted.map(gpuFigures);
  const energyJ = sumOrNull(gpus.map((g) => g.energyJ));
  const perToken = energyJ !== null && outputTokens > 0 ? energyJ / outputTokens : null;
  return {
    gpus,
    total: {
      gpus: gpus.length,
      energyJ,
      energySpanS: max(gpus.map((g) => g.energySpanS)) ?? 0,
      meanPowerW: sumOrNull(gpus.map((g) => g.meanPowerW)),
      maxPowerW: peakSummedPower(counted),
      meanUtilPct: mean(known(gpus.map((g) => g.meanUtilPct))),
      maxMemUsedMiB: sumOrNull(gpus.map((g) => g.maxMemUsedMiB)),
      memTotalMiB: sumOrNull(gpus.map((g) => g.memTotalMiB)),
      outputTokens,
      energyPerOutputTokenJ: perToken,
      outputTokensPerJ: energyJ !== null && energyJ > 0 ? outputTokens / energyJ : null,
    },
  };
}
