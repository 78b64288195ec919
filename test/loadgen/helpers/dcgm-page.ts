// A DCGM exporter page as dcgm-exporter 4.5.3-4.8.2 renders it (its GPU template, internal/pkg/rendermetrics/
// render_metrics.go: `# HELP`, `# TYPE`, then per GPU `FIELD{gpu="i",UUID="...",pci_bus_id="...",device="nvidiaI",
// modelName="...",Hostname="..."[,DCGM_FI_DRIVER_VERSION="..."]} value`), with the fields its default counters
// (etc/default-counters.csv) enable. Rendered here from those definitions, with our own help texts and values:
// the test's GPUs, whose power, energy counter and utilisation the test sets.

export interface FakeGpu {
  readonly index: number;
  readonly uuid: string;
  readonly model: string;
  powerW: number;
  /** Since "boot", mJ. */
  energyMj: number;
  utilPct: number;
  memUsedMiB: number;
  memFreeMiB: number;
}

/** The default counters of 4.5.3-4.8.2 (field, Prometheus type), in the file's order. */
const DEFAULT_COUNTERS: ReadonlyArray<readonly [string, 'gauge' | 'counter', string]> = [
  ['DCGM_FI_DEV_SM_CLOCK', 'gauge', 'SM clock (MHz).'],
  ['DCGM_FI_DEV_MEM_CLOCK', 'gauge', 'Memory clock (MHz).'],
  ['DCGM_FI_DEV_MEMORY_TEMP', 'gauge', 'Memory temperature (C).'],
  ['DCGM_FI_DEV_GPU_TEMP', 'gauge', 'GPU temperature (C).'],
  ['DCGM_FI_DEV_POWER_USAGE', 'gauge', 'Power draw (W).'],
  ['DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION', 'counter', 'Energy since boot (mJ).'],
  ['DCGM_FI_DEV_PCIE_REPLAY_COUNTER', 'counter', 'PCIe retries.'],
  ['DCGM_FI_DEV_GPU_UTIL', 'gauge', 'GPU utilisation (%).'],
  ['DCGM_FI_DEV_MEM_COPY_UTIL', 'gauge', 'Memory utilisation (%).'],
  ['DCGM_FI_DEV_ENC_UTIL', 'gauge', 'Encoder utilisation (%).'],
  ['DCGM_FI_DEV_DEC_UTIL', 'gauge', 'Decoder utilisation (%).'],
  ['DCGM_FI_DEV_XID_ERRORS', 'gauge', 'Last XID error.'],
  ['DCGM_FI_DEV_FB_FREE', 'gauge', 'Framebuffer free (MiB).'],
  ['DCGM_FI_DEV_FB_USED', 'gauge', 'Framebuffer used (MiB).'],
  ['DCGM_FI_DEV_FB_RESERVED', 'gauge', 'Framebuffer reserved (MiB).'],
  ['DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL', 'counter', 'NVLink bandwidth counters, all lanes.'],
  ['DCGM_FI_DEV_VGPU_LICENSE_STATUS', 'gauge', 'vGPU licence status.'],
  ['DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS', 'counter', 'Rows remapped, uncorrectable errors.'],
  ['DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS', 'counter', 'Rows remapped, correctable errors.'],
  ['DCGM_FI_DEV_ROW_REMAP_FAILURE', 'gauge', 'Whether row remapping failed.'],
];

const RESERVED_MIB = 512;

function fieldValue(field: string, gpu: FakeGpu): string {
  switch (field) {
    case 'DCGM_FI_DEV_POWER_USAGE':
      return gpu.powerW.toFixed(3);
    case 'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION':
      return String(Math.round(gpu.energyMj));
    case 'DCGM_FI_DEV_GPU_UTIL':
      return String(Math.round(gpu.utilPct));
    case 'DCGM_FI_DEV_FB_USED':
      return String(gpu.memUsedMiB);
    case 'DCGM_FI_DEV_FB_FREE':
      return String(gpu.memFreeMiB);
    case 'DCGM_FI_DEV_FB_RESERVED':
      return String(RESERVED_MIB);
    case 'DCGM_FI_DEV_SM_CLOCK':
      return '1980';
    case 'DCGM_FI_DEV_MEM_CLOCK':
      return '2619';
    case 'DCGM_FI_DEV_GPU_TEMP':
      return '41';
    case 'DCGM_FI_DEV_MEMORY_TEMP':
      return '39';
    default:
      return '0';
  }
}

/** The page for these GPUs on this host; `hostLabel` is 4.5.3-4.8.2's `Hostname` or its successor's `hostname`. */
export function renderDcgmPage(
  gpus: readonly FakeGpu[],
  host = 'gpu-node-1',
  hostLabel: 'Hostname' | 'hostname' = 'Hostname',
): string {
  const lines: string[] = [];
  for (const [field, type, help] of DEFAULT_COUNTERS) {
    lines.push(`# HELP ${field} ${help}`, `# TYPE ${field} ${type}`);
    for (const gpu of gpus) {
      const labels =
        `gpu="${gpu.index}",UUID="${gpu.uuid}",pci_bus_id="00000000:${(0x18 + gpu.index).toString(16).toUpperCase()}:00.0",` +
        `device="nvidia${gpu.index}",modelName="${gpu.model}",${hostLabel}="${host}",DCGM_FI_DRIVER_VERSION="570.124.06"`;
      lines.push(`${field}{${labels}} ${fieldValue(field, gpu)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export function fakeGpu(index: number, overrides: Partial<FakeGpu> = {}): FakeGpu {
  return {
    index,
    uuid: `GPU-${String(index).repeat(8)}-1111-2222-3333-444455556666`,
    model: 'NVIDIA H100 80GB HBM3',
    powerW: 70,
    energyMj: 1_000_000_000 + index * 1000,
    utilPct: 0,
    memUsedMiB: 60_000,
    memFreeMiB: 20_559,
    ...overrides,
  };
}
