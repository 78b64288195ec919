// The server's metrics through a run: a baseline before the first request, a sample every interval, and a last
// one once the run has drained, so counters are read as increases over exactly the run and gauges as their path
// through it. A sample is skipped, not queued, while the previous one is still being fetched: a slow page costs
// samples, never a pile of requests against a server under load. The CPU each sample costs this process (reading
// the page; the socket's share is measured apart, bench/server-metrics-scrape.ts) is kept, to be reported.

import { fetchMetricsPage, shownMetricsUrl } from './scrape-page.js';
import type { ServerMetricsSettings } from './server-metrics-settings.js';
import { readServerPage, type ServerReading } from './server-reading.js';

/** A page that does not answer within this (or the interval, when longer) is a failed sample. */
const MIN_SCRAPE_TIMEOUT_MS = 1000;

export interface ServerSample {
  /** performance.now() when the page arrived. */
  readonly atMs: number;
  readonly reading: ServerReading;
}

/** What the scraper found: the samples, or why there are none. */
export interface ServerScrape {
  /** As shown and saved (no user info). */
  readonly url: string;
  readonly intervalMs: number;
  readonly samples: readonly ServerSample[];
  /** Samples that failed after the baseline (the server busy, the page late). */
  readonly failed: number;
  /** Ticks skipped because the previous sample was still being fetched. */
  readonly skipped: number;
  /** CPU time (ms, user + system) this process spent reading each page. */
  readonly readCpuMs: readonly number[];
  readonly pageBytes: number;
  /** Whether the last sample is the one taken after the drain (it failed, when not). */
  readonly lastAfterDrain: boolean;
  /** Set when there are no server metrics: the sentence the report prints. */
  readonly unavailable?: string;
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export function metricsUrlFor(settings: ServerMetricsSettings, targetOrigin: string): string {
  return settings.url ?? new URL('/metrics', targetOrigin).toString();
}

export class ServerMetricsScraper {
  readonly #url: string;
  readonly #settings: ServerMetricsSettings;
  readonly #samples: ServerSample[] = [];
  readonly #readCpuMs: number[] = [];
  #failed = 0;
  #skipped = 0;
  #pageBytes = 0;
  #timer: NodeJS.Timeout | undefined;
  #inFlight: Promise<void> | undefined;
  #unavailable: string | undefined;
  readonly #listeners: Array<(sample: ServerSample) => void> = [];

  private constructor(url: string, settings: ServerMetricsSettings) {
    this.#url = url;
    this.#settings = settings;
  }

  /** Takes the baseline; with one, samples every interval until finish(). */
  static async start(settings: ServerMetricsSettings, targetOrigin: string): Promise<ServerMetricsScraper> {
    const scraper = new ServerMetricsScraper(metricsUrlFor(settings, targetOrigin), settings);
    const problem = await scraper.#sample();
    if (problem !== undefined) {
      const given = settings.url === undefined ? "the target's" : '--server-metrics-url';
      scraper.#unavailable = `${given} ${shownMetricsUrl(scraper.#url)} ${problem}`;
      return scraper;
    }
    scraper.#timer = setInterval(() => scraper.#tick(), settings.intervalMs);
    return scraper;
  }

  get available(): boolean {
    return this.#unavailable === undefined;
  }

  get samples(): readonly ServerSample[] {
    return this.#samples;
  }

  /** Called with each sample after the baseline (the early-stop rules read the waiting queue). */
  onSample(listener: (sample: ServerSample) => void): void {
    this.#listeners.push(listener);
  }

  #tick(): void {
    if (this.#inFlight !== undefined) {
      this.#skipped++;
      return;
    }
    this.#inFlight = this.#sample().then((problem) => {
      if (problem !== undefined) this.#failed++;
      this.#inFlight = undefined;
    });
  }

  /** One sample; a sentence saying why when there is none. */
  async #sample(): Promise<string | undefined> {
    const fetched = await fetchMetricsPage(
      this.#url,
      Math.max(this.#settings.intervalMs, MIN_SCRAPE_TIMEOUT_MS),
    );
    if (!fetched.ok) return fetched.problem;
    const atMs = performance.now();
    const cpu = process.cpuUsage();
    const reading = readServerPage(fetched.page);
    this.#readCpuMs.push(cpuMsSince(cpu));
    this.#pageBytes = Math.max(this.#pageBytes, Buffer.byteLength(fetched.page));
    if (reading === null) {
      return "answered, but with none of vLLM's or SGLang's metric names (a tokenmeter gateway's page? give the upstream's with --server-metrics-url)";
    }
    const sample = { atMs, reading };
    this.#samples.push(sample);
    for (const listener of this.#listeners) listener(sample);
    return undefined;
  }

  /** Stops the interval and takes the last sample (after the drain). */
  async finish(): Promise<ServerScrape> {
    clearInterval(this.#timer);
    await this.#inFlight;
    let lastAfterDrain = false;
    if (this.available) {
      if ((await this.#sample()) === undefined) lastAfterDrain = true;
      else this.#failed++;
    }
    return {
      url: shownMetricsUrl(this.#url),
      intervalMs: this.#settings.intervalMs,
      samples: this.#samples,
      failed: this.#failed,
      skipped: this.#skipped,
      readCpuMs: this.#readCpuMs,
      pageBytes: this.#pageBytes,
      lastAfterDrain,
      ...(this.#unavailable === undefined ? {} : { unavailable: this.#unavailable }),
    };
  }
}
