// This machine's GPUs through a run, from `nvidia-smi --query-gpu ... -lms N`: one process for the whole run,
// printing a line per GPU every interval, each line stamped when it arrives. Its first lines are the baseline
// (awaited before the first request); once the run has drained, the lines of one more tick are the last sample
// and the process is stopped. No nvidia-smi on the PATH is no failure: the run has no local GPU figures, and says
// so only when --nvidia-smi asked for them. nvidia-smi has no energy counter: energy is integrated from power.

import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { PageSample, PageScrape } from '../server-metrics/server-scraper.js';
import { type GpuReading, gpuKey } from './gpu-reading.js';

export const NVIDIA_SMI = 'nvidia-smi';
export const SMI_QUERY = 'index,uuid,name,power.draw,utilization.gpu,memory.used,memory.total';

/** How long the first lines (the baseline) and the last tick may take before the sampler gives up on them. */
const FIRST_LINES_TIMEOUT_MS = 5000;

/** The figure, or null where nvidia-smi wrote "[N/A]", "[Not Supported]" and the like. */
function figure(field: string | undefined): number | null {
  const value = Number(field);
  return field === undefined || field === '' || !Number.isFinite(value) ? null : value;
}

/** One line of the query above (csv, noheader, nounits); null for a line that is not one. */
export function readSmiLine(line: string): GpuReading | null {
  const fields = line.split(',').map((f) => f.trim());
  if (fields.length !== SMI_QUERY.split(',').length) return null;
  const [index, uuid, name, power, util, used, total] = fields as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (!/^\d+$/.test(index)) return null;
  return {
    key: gpuKey(uuid || null, null, index),
    index,
    uuid: uuid || null,
    model: name || null,
    host: null,
    powerW: figure(power),
    energyMj: null,
    utilPct: figure(util),
    memUsedMiB: figure(used),
    memTotalMiB: figure(total),
  };
}

export class NvidiaSmiSampler {
  readonly #child: ChildProcess;
  readonly #intervalMs: number;
  readonly #samples: PageSample<GpuReading[]>[] = [];
  #burst: { atMs: number; readings: GpuReading[] } | undefined;
  #problem: string | undefined;
  #exited = false;
  readonly #waiters: Array<() => void> = [];

  private constructor(child: ChildProcess, intervalMs: number) {
    this.#child = child;
    this.#intervalMs = intervalMs;
  }

  /** Starts nvidia-smi and waits for its first lines; with none (no such command, no GPU), why not. */
  static async start(intervalMs: number): Promise<NvidiaSmiSampler | { readonly unavailable: string }> {
    const args = [
      `--query-gpu=${SMI_QUERY}`,
      '--format=csv,noheader,nounits',
      `-lms`,
      String(Math.max(1, Math.round(intervalMs))),
    ];
    const child = spawn(NVIDIA_SMI, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    const sampler = new NvidiaSmiSampler(child, intervalMs);
    child.on('error', (error: NodeJS.ErrnoException) => {
      sampler.#problem =
        error.code === 'ENOENT' ? `no ${NVIDIA_SMI} on the PATH` : `${NVIDIA_SMI} failed: ${error.message}`;
      sampler.#ended();
    });
    child.on('exit', (code) => {
      sampler.#problem ??= `${NVIDIA_SMI} exited (status ${code})`;
      sampler.#ended();
    });
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) =>
      sampler.#line(line),
    );
    const first = await sampler.#nextSample(FIRST_LINES_TIMEOUT_MS);
    if (!first) {
      sampler.#stop();
      return {
        unavailable: sampler.#problem ?? `${NVIDIA_SMI} printed no GPU within ${FIRST_LINES_TIMEOUT_MS} ms`,
      };
    }
    return sampler;
  }

  #ended(): void {
    this.#exited = true;
    this.#flush();
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** A GPU seen again starts the next tick's sample. */
  #line(line: string): void {
    const reading = readSmiLine(line);
    if (reading === null) return;
    if (this.#burst?.readings.some((r) => r.key === reading.key)) this.#flush();
    this.#burst ??= { atMs: performance.now(), readings: [] };
    this.#burst.readings.push(reading);
    // The last GPU of a tick is not known until the next tick's first line: a tick is complete after a pause.
    setImmediate(() => {
      if (this.#burst !== undefined && this.#burst.readings.at(-1) === reading) this.#flush();
    });
  }

  #flush(): void {
    const burst = this.#burst;
    if (burst === undefined) return;
    this.#burst = undefined;
    this.#samples.push({ atMs: burst.atMs, reading: burst.readings });
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Whether a sample arrived within the timeout. */
  async #nextSample(timeoutMs: number): Promise<boolean> {
    const before = this.#samples.length;
    if (this.#exited) return false;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.#waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    return this.#samples.length > before;
  }

  #stop(): void {
    if (!this.#exited) this.#child.kill();
  }

  /** The last tick after the drain, then nvidia-smi stopped. */
  async finish(): Promise<PageScrape<GpuReading[]>> {
    const lastAfterDrain = await this.#nextSample(this.#intervalMs + FIRST_LINES_TIMEOUT_MS);
    this.#stop();
    return {
      url: NVIDIA_SMI,
      intervalMs: this.#intervalMs,
      samples: this.#samples,
      failed: 0,
      skipped: 0,
      readCpuMs: [],
      pageBytes: 0,
      lastAfterDrain,
    };
  }
}
