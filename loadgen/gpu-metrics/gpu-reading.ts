// One GPU's figures at one instant, whichever source read them: a DCGM exporter's page (dcgm-reading.ts) or a
// line of `nvidia-smi --query-gpu` (nvidia-smi-sampler.ts). A figure the source did not give is null.

export interface GpuReading {
  /** The GPU's identity across samples and shards: its UUID, else host and index. */
  readonly key: string;
  /** The driver's index (DCGM's `gpu` label, nvidia-smi's `index`). */
  readonly index: string;
  readonly uuid: string | null;
  readonly model: string | null;
  readonly host: string | null;
  /** Power draw, W. */
  readonly powerW: number | null;
  /** Energy since the driver loaded, mJ (DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION); nvidia-smi gives none. */
  readonly energyMj: number | null;
  /** Share of the last sample period a kernel ran, %. */
  readonly utilPct: number | null;
  readonly memUsedMiB: number | null;
  /** Used and free together (DCGM), or memory.total (nvidia-smi). */
  readonly memTotalMiB: number | null;
}

export function gpuKey(uuid: string | null, host: string | null, index: string): string {
  return uuid ?? `${host ?? ''}#${index}`;
}
