// A run's GPU samples as one track per GPU on the run's clock (seconds from its t = 0; the baseline is before 0),
// the form every reader works from: the summary, the result JSON, the HTML and `merge`. A track keeps its own
// times, so tracks of several sources and shards sit side by side; the GPUs of one page (or one nvidia-smi tick)
// share their times, which is how the total's peak power is summed at one instant.

import type { PageScrape } from '../server-metrics/server-scraper.js';
import type { GpuReading } from './gpu-reading.js';

export type GpuSource = 'dcgm' | 'nvidia-smi';

/** Which GPU a track or its figures are of, as its source names it. */
export interface GpuIdentity {
  readonly source: GpuSource;
  readonly key: string;
  readonly index: string;
  readonly uuid: string | null;
  readonly model: string | null;
  readonly host: string | null;
}

export function gpuIdentity(track: GpuIdentity): GpuIdentity {
  const { source, key, index, uuid, model, host } = track;
  return { source, key, index, uuid, model, host };
}

export interface GpuTrack extends GpuIdentity {
  /** Seconds from the run's t = 0, ascending. */
  readonly tS: readonly number[];
  readonly powerW: readonly (number | null)[];
  readonly energyMj: readonly (number | null)[];
  readonly utilPct: readonly (number | null)[];
  readonly memUsedMiB: readonly (number | null)[];
  readonly memTotalMiB: number | null;
}

/** Where a source's samples came from and how many there were. */
export interface GpuSourceInfo {
  readonly source: GpuSource;
  /** The DCGM page as shown (no user info), or "nvidia-smi". */
  readonly url: string;
  readonly intervalMs: number;
  readonly samples: number;
  readonly failed: number;
}

/** A run's GPU figures: the tracks, where they came from, and why a source asked for gave none. */
export interface GpuMetricsRun {
  readonly sources: readonly GpuSourceInfo[];
  readonly gpus: readonly GpuTrack[];
  readonly notes: readonly string[];
}

interface Row {
  readonly t: number;
  readonly reading: GpuReading;
}

function trackOf(source: GpuSource, rows: readonly Row[]): GpuTrack {
  const first = (rows[0] as Row).reading;
  const totals = rows.map((r) => r.reading.memTotalMiB).filter((v): v is number => v !== null);
  return {
    source,
    key: first.key,
    index: first.index,
    uuid: first.uuid,
    model: first.model,
    host: first.host,
    tS: rows.map((r) => r.t),
    powerW: rows.map((r) => r.reading.powerW),
    energyMj: rows.map((r) => r.reading.energyMj),
    utilPct: rows.map((r) => r.reading.utilPct),
    memUsedMiB: rows.map((r) => r.reading.memUsedMiB),
    memTotalMiB: totals.length === 0 ? null : Math.max(...totals),
  };
}

/** One track per GPU the scrape saw, in the order first seen. */
export function tracksOfScrape(
  scrape: PageScrape<readonly GpuReading[]>,
  source: GpuSource,
  runStartedAtMs: number,
): GpuTrack[] {
  const rows = new Map<string, Row[]>();
  for (const sample of scrape.samples) {
    const t = (sample.atMs - runStartedAtMs) / 1000;
    for (const reading of sample.reading) {
      const list = rows.get(reading.key);
      if (list === undefined) rows.set(reading.key, [{ t, reading }]);
      else list.push({ t, reading });
    }
  }
  return [...rows.values()].map((list) => trackOf(source, list));
}

function rowsOfTrack(track: GpuTrack): Row[] {
  return track.tS.map((t, i) => ({
    t,
    reading: {
      key: track.key,
      index: track.index,
      uuid: track.uuid,
      model: track.model,
      host: track.host,
      powerW: track.powerW[i] ?? null,
      energyMj: track.energyMj[i] ?? null,
      utilPct: track.utilPct[i] ?? null,
      memUsedMiB: track.memUsedMiB[i] ?? null,
      memTotalMiB: track.memTotalMiB,
    },
  }));
}

/** A GPU's joined samples in the order they were taken: by its energy counter where every sample has it (the
 *  counter only grows, whatever the shards' clocks: shards not started at one instant have a t = 0 each, as
 *  loadgen/server-metrics/server-series.ts's mergeSeries explains), else by time. */
function byCounterElseTime(rows: readonly Row[]): (a: Row, b: Row) => number {
  const counted = rows.every((r) => r.reading.energyMj !== null);
  return counted
    ? (a, b) => (a.reading.energyMj as number) - (b.reading.energyMj as number) || a.t - b.t
    : (a, b) => a.t - b.t;
}

/**
 * Shards' GPU figures as one run's. A GPU that several shards read (the same server's DCGM page, the usual case)
 * is one track, its samples joined by time, so its energy is counted once over the span they covered; different
 * GPUs (shards reading different servers, or different GPUs of one) stay apart, and the total sums their energy.
 */
export function mergeGpuRuns(parts: readonly GpuMetricsRun[]): GpuMetricsRun | undefined {
  if (parts.length === 0) return undefined;
  const sources = new Map<string, GpuSourceInfo>();
  for (const info of parts.flatMap((p) => p.sources)) {
    const id = `${info.source} ${info.url}`;
    const seen = sources.get(id);
    sources.set(
      id,
      seen === undefined
        ? info
        : { ...seen, samples: seen.samples + info.samples, failed: seen.failed + info.failed },
    );
  }
  const rows = new Map<string, { source: GpuSource; rows: Row[] }>();
  for (const track of parts.flatMap((p) => p.gpus)) {
    const id = `${track.source} ${track.key}`;
    const list = rows.get(id);
    if (list === undefined) rows.set(id, { source: track.source, rows: rowsOfTrack(track) });
    else list.rows.push(...rowsOfTrack(track));
  }
  return {
    sources: [...sources.values()],
    gpus: [...rows.values()].map(({ source, rows: list }) =>
      trackOf(source, list.sort(byCounterElseTime(list))),
    ),
    notes: [...new Set(parts.flatMap((p) => p.notes))],
  };
}
