// bench's "GPU" section: power, energy (and per output token), utilisation and memory over the run, per GPU when
// there are several and totalled; one line per source that was asked for and gave nothing.

import { centre, padRight } from '../report/python-format.js';
import { type GpuFigures, summarizeGpus } from './gpu-summary.js';
import type { GpuMetricsRun } from './gpu-tracks.js';

const row = (label: string, value: string): string => `${padRight(label, 40)} ${value}`;
const fixed = (value: number | null, places: number): string =>
  value === null ? 'n/a' : value.toFixed(places);

function gpuName(g: GpuFigures): string {
  return `GPU ${g.index}${g.host === null ? '' : ` on ${g.host}`}${g.model === null ? '' : ` (${g.model})`}`;
}

function energySource(gpus: readonly GpuFigures[]): string {
  const from = new Set(gpus.map((g) => g.energyFrom).filter((f) => f !== null));
  if (from.size > 1) return 'energy counter and power integrated';
  return from.has('counter') ? 'energy counter' : 'power integrated';
}

function memoryText(usedMiB: number | null, totalMiB: number | null): string {
  const gib = (mib: number): string => (mib / 1024).toFixed(1);
  if (usedMiB === null) return 'n/a';
  return totalMiB === null ? `${gib(usedMiB)} GiB` : `${gib(usedMiB)} of ${gib(totalMiB)} GiB`;
}

export function formatGpuSection(run: GpuMetricsRun | undefined, outputTokens: number): string[] {
  if (run === undefined) return [];
  const lines = run.notes.map((note) => `GPU metrics: none from ${note}.`);
  if (run.gpus.length === 0) return lines;
  const { gpus, total } = summarizeGpus(run.gpus, outputTokens);
  const sources = run.sources.map((s) => (s.source === 'dcgm' ? `DCGM ${s.url}` : 'nvidia-smi')).join(', ');
  lines.push(
    centre(' GPU ', 50, '-'),
    row('Source:', `${sources} (${gpus.length} GPU${gpus.length === 1 ? '' : 's'})`),
    row(
      'GPU energy (J):',
      `${fixed(total.energyJ, 1)} over ${total.energySpanS.toFixed(1)} s (${energySource(gpus)})`,
    ),
    row('GPU energy per output token (J):', fixed(total.energyPerOutputTokenJ, 4)),
    row('Output tokens per joule:', fixed(total.outputTokensPerJ, 3)),
    row('GPU power mean / max (W):', `${fixed(total.meanPowerW, 1)} / ${fixed(total.maxPowerW, 1)}`),
    row('GPU utilisation mean (%):', fixed(total.meanUtilPct, 1)),
    row('GPU memory used max:', memoryText(total.maxMemUsedMiB, total.memTotalMiB)),
  );
  if (gpus.length > 1) {
    for (const g of gpus) {
      lines.push(
        row(
          `${gpuName(g)}:`,
          `${fixed(g.energyJ, 1)} J, ${fixed(g.meanPowerW, 1)} W mean, ${fixed(g.meanUtilPct, 1)}% busy, ${memoryText(g.maxMemUsedMiB, g.memTotalMiB)}`,
        ),
      );
    }
  } else if (gpus[0] !== undefined) {
    lines.push(row('GPU:', gpuName(gpus[0])));
  }
  return lines;
}
