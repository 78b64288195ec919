// The run report's "GPU" section: the totals as the text report gives them, and a row per GPU; the sources'
// notes (a source asked for that gave nothing) as one line each. Drawn from the feature's part, read back from
// `tokenmeter.gpu_metrics`.

import type { PageSection } from '../feature.js';
import { escapeHtml, keyValueTable } from '../report/html/page.js';
import { summarizeGpus } from './gpu-summary.js';
import type { GpuMetricsRun } from './gpu-tracks.js';

const fixed = (value: number | null, places: number): string | null =>
  value === null ? null : value.toFixed(places);
const gib = (mib: number | null): string => (mib === null ? '' : (mib / 1024).toFixed(1));

/** The section's body: the notes alone when no GPU gave figures. */
function gpuPanel(run: GpuMetricsRun, outputTokens: number): string {
  const notes = run.notes.map((note) => `<p class="message">No GPU figures from ${escapeHtml(note)}.</p>`);
  if (run.gpus.length === 0) return notes.join('');
  const { gpus, total } = summarizeGpus(run.gpus, outputTokens);
  const totals = keyValueTable('All GPUs', [
    ['Energy (J)', fixed(total.energyJ, 1)],
    ['Energy per output token (J)', fixed(total.energyPerOutputTokenJ, 4)],
    ['Output tokens per joule', fixed(total.outputTokensPerJ, 3)],
    ['Power mean (W)', fixed(total.meanPowerW, 1)],
    ['Power max (W)', fixed(total.maxPowerW, 1)],
    ['Utilisation mean (%)', fixed(total.meanUtilPct, 1)],
    ['Memory used max (GiB)', `${gib(total.maxMemUsedMiB)} of ${gib(total.memTotalMiB)}`],
    ['Sources', run.sources.map((s) => (s.source === 'dcgm' ? `DCGM ${s.url}` : 'nvidia-smi')).join(', ')],
  ]);
  const head = [
    'GPU',
    'model',
    'host',
    'energy (J)',
    'from',
    'power mean (W)',
    'power max (W)',
    'util mean (%)',
    'memory max (GiB)',
  ];
  const rows = gpus.map((g) =>
    [
      g.index,
      g.model ?? '',
      g.host ?? '',
      fixed(g.energyJ, 1) ?? '',
      g.energyFrom ?? '',
      fixed(g.meanPowerW, 1) ?? '',
      fixed(g.maxPowerW, 1) ?? '',
      fixed(g.meanUtilPct, 1) ?? '',
      `${gib(g.maxMemUsedMiB)} of ${gib(g.memTotalMiB)}`,
    ]
      .map((cell) => `<td>${escapeHtml(cell)}</td>`)
      .join(''),
  );
  const perGpu =
    `<table class="gpus"><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead>` +
    `<tbody>${rows.map((r) => `<tr>${r}</tr>`).join('')}</tbody></table>`;
  return `${notes.join('')}<div class="panels">${totals}</div>${perGpu}`;
}

/** The run page's "GPU" section, given the run's output tokens (the per-token energy divides by them). */
export function gpuPageSection(run: GpuMetricsRun, outputTokens: number): PageSection {
  return { heading: 'GPU', body: gpuPanel(run, outputTokens) };
}
