// One reading of NVIDIA's DCGM exporter page (its Prometheus text, dcgm-exporter 4.x): per GPU the default
// counters tokenmeter reads, each sample labelled by `gpu` (the index), `UUID`, `device`, `modelName` and
// `Hostname` (`hostname` from 4.5.3-4.8.2's successor on), with MIG, driver and Kubernetes labels after them.
// A page with none of these names is not a DCGM exporter's page: null.

import { parseSamples } from '../../src/shared/prometheus-text.js';
import { type GpuReading, gpuKey } from './gpu-reading.js';

/** The DCGM fields read, by what tokenmeter calls them (docs/metrics.md, "GPU figures"). */
export const DCGM_FIELDS = {
  powerW: 'DCGM_FI_DEV_POWER_USAGE',
  energyMj: 'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION',
  utilPct: 'DCGM_FI_DEV_GPU_UTIL',
  memUsedMiB: 'DCGM_FI_DEV_FB_USED',
  memFreeMiB: 'DCGM_FI_DEV_FB_FREE',
  memReservedMiB: 'DCGM_FI_DEV_FB_RESERVED',
} as const;
type DcgmFigure = keyof typeof DCGM_FIELDS;

const FIGURE_OF_NAME = new Map<string, DcgmFigure>(
  (Object.entries(DCGM_FIELDS) as [DcgmFigure, string][]).map(([figure, name]) => [name, figure]),
);

type Figures = Partial<Record<DcgmFigure, number>>;

/** Every GPU on the page, in the page's order of first appearance; null when the page has none of the fields. */
export function readDcgmPage(page: string): GpuReading[] | null {
  const gpus = new Map<
    string,
    { index: string; uuid: string | null; model: string | null; host: string | null; figures: Figures }
  >();
  for (const sample of parseSamples(page, (name) => FIGURE_OF_NAME.has(name))) {
    const index = sample.labels['gpu'];
    // A MIG instance repeats its GPU's device-wide figures; an NVSwitch or CPU line has no `gpu` label.
    if (index === undefined || sample.labels['GPU_I_ID'] !== undefined) continue;
    const uuid = sample.labels['UUID'] ?? sample.labels['uuid'] ?? null;
    const host = sample.labels['Hostname'] ?? sample.labels['hostname'] ?? null;
    const key = gpuKey(uuid, host, index);
    let gpu = gpus.get(key);
    if (gpu === undefined) {
      gpu = { index, uuid, model: sample.labels['modelName'] ?? null, host, figures: {} };
      gpus.set(key, gpu);
    }
    const figure = FIGURE_OF_NAME.get(sample.name) as DcgmFigure;
    if (Number.isFinite(sample.value)) gpu.figures[figure] = sample.value;
  }
  if (gpus.size === 0) return null;
  return [...gpus.entries()].map(([key, gpu]) => {
    const f = gpu.figures;
    return {
      key,
      index: gpu.index,
      uuid: gpu.uuid,
      model: gpu.model,
      host: gpu.host,
      powerW: f.powerW ?? null,
      energyMj: f.energyMj ?? null,
      utilPct: f.utilPct ?? null,
      memUsedMiB: f.memUsedMiB ?? null,
      // The framebuffer is used + free + reserved (the driver's share), as nvidia-smi's memory.total counts it.
      memTotalMiB:
        f.memUsedMiB !== undefined && f.memFreeMiB !== undefined
          ? f.memUsedMiB + f.memFreeMiB + (f.memReservedMiB ?? 0)
          : null,
    };
  });
}
