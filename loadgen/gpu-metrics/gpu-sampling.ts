// The GPUs' figures through a run: the DCGM exporter's page read by the scraper every page of a run goes
// through (loadgen/server-metrics/server-scraper.ts) and nvidia-smi sampled on this machine, both started
// before the first request and finished after the drain.

import { MetricsPageScraper, type PageKind, type PageScrape } from '../server-metrics/server-scraper.js';
import { readDcgmPage } from './dcgm-reading.js';
import type { GpuMetricsSettings } from './gpu-metrics-settings.js';
import type { GpuReading } from './gpu-reading.js';
import { type GpuMetricsRun, type GpuSourceInfo, type GpuTrack, tracksOfScrape } from './gpu-tracks.js';
import { NvidiaSmiSampler } from './nvidia-smi-sampler.js';

const DCGM_PAGE: PageKind<GpuReading[]> = {
  read: readDcgmPage,
  notThisKind: "answered, but with none of DCGM's GPU fields (DCGM_FI_DEV_POWER_USAGE and the like)",
  given: '--gpu-metrics-url',
};

export class GpuSampling {
  readonly #dcgm: MetricsPageScraper<GpuReading[]> | null;
  readonly #smi: NvidiaSmiSampler | null;
  readonly #notes: string[];

  private constructor(
    dcgm: MetricsPageScraper<GpuReading[]> | null,
    smi: NvidiaSmiSampler | null,
    notes: string[],
  ) {
    this.#dcgm = dcgm;
    this.#smi = smi;
    this.#notes = notes;
  }

  /** Takes each source's baseline. */
  static async start(settings: GpuMetricsSettings): Promise<GpuSampling> {
    const notes: string[] = [];
    const [dcgm, smi] = await Promise.all([
      settings.url === undefined
        ? null
        : MetricsPageScraper.open(settings.url, settings.intervalMs, DCGM_PAGE),
      settings.nvidiaSmi === 'off' ? null : NvidiaSmiSampler.start(settings.intervalMs),
    ]);
    let sampler: NvidiaSmiSampler | null = null;
    if (smi instanceof NvidiaSmiSampler) sampler = smi;
    else if (smi !== null && settings.nvidiaSmi === 'asked') notes.push(`--nvidia-smi: ${smi.unavailable}`);
    return new GpuSampling(dcgm, sampler, notes);
  }

  /** Takes the last samples, after the drain; then, given the run's t = 0, its figures (undefined when no source
   *  was tried or gave anything, and there is nothing to say). */
  async finish(): Promise<(runStartedAtMs: number) => GpuMetricsRun | undefined> {
    const [dcgm, smi] = await Promise.all([this.#dcgm?.finish(), this.#smi?.finish()]);
    return (runStartedAtMs) => this.#onRunClock(dcgm, smi, runStartedAtMs);
  }

  #onRunClock(
    dcgm: PageScrape<GpuReading[]> | undefined,
    smi: PageScrape<GpuReading[]> | undefined,
    runStartedAtMs: number,
  ): GpuMetricsRun | undefined {
    const sources: GpuSourceInfo[] = [];
    const gpus: GpuTrack[] = [];
    const notes = [...this.#notes];
    if (dcgm !== undefined) {
      if (dcgm.unavailable !== undefined) notes.push(dcgm.unavailable);
      else {
        sources.push({
          source: 'dcgm',
          url: dcgm.url,
          intervalMs: dcgm.intervalMs,
          samples: dcgm.samples.length,
          failed: dcgm.failed,
        });
        gpus.push(...tracksOfScrape(dcgm, 'dcgm', runStartedAtMs));
      }
    }
    if (smi !== undefined) {
      sources.push({
        source: 'nvidia-smi',
        url: smi.url,
        intervalMs: smi.intervalMs,
        samples: smi.samples.length,
        failed: 0,
      });
      gpus.push(...tracksOfScrape(smi, 'nvidia-smi', runStartedAtMs));
    }
    return sources.length === 0 && notes.length === 0 ? undefined : { sources, gpus, notes };
  }
}
