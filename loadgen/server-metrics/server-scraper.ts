// A Prometheus page through a run: a baseline before the first request, a sample every interval, and a last
// one once the run has drained, so counters are read as increases over exactly the run and gauges as their path
// through it. A sample is skipped, not queued, while the previous one is still being fetched: a slow page costs
// samples, never a pile of requests against a server under load. The CPU each sample costs this process (reading
// the page; the socket's share is measured apart, bench/server-metrics-scrape.ts) is kept, to be reported.
// One scraper for every page a run reads, each with its own reader: the server's /metrics (server-reading.ts)
// and a DCGM exporter's GPU page (loadgen/gpu-metrics/dcgm-reading.ts).

import { fetchMetricsPage, shownMetricsUrl } from './scrape-page.js';
import type { ServerMetricsSettings } from './server-metrics-settings.js';
import { readServerPage, type ServerReading } from './server-reading.js';

/** A page that does not answer within this (or the interval, when longer) is a failed sample. */
const MIN_SCRAPE_TIMEOUT_MS = 1000;

export interface PageSample<Reading> {
  /** performance.now() when the page arrived. */
  readonly atMs: number;
  readonly reading: Reading;
}
export type ServerSample = PageSample<ServerReading>;

/** What the scraper found: the samples, or why there are none. */
export interface PageScrape<Reading> {
  /** As shown and saved (no user info). */
  readonly url: string;
  readonly intervalMs: number;
  readonly samples: readonly PageSample<Reading>[];
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
export type ServerScrape = PageScrape<ServerReading>;

/** How to read one kind of page, and what to say about it. */
export interface PageKind<Reading> {
  /** The page's reading; null when it is not a page of this kind. */
  readonly read: (page: string) => Reading | null;
  /** Why a page that answered is not one of this kind. */
  readonly notThisKind: string;
  /** Who gave the URL, for the sentence saying why there are no samples ("--gpu-metrics-url"). */
  readonly given: string;
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export function metricsUrlFor(settings: ServerMetricsSettings, targetOrigin: string): string {
  return settings.url ?? new URL('/metrics', targetOrigin).toString();
}

const SERVER_PAGE: PageKind<ServerReading> = {
  read: readServerPage,
  notThisKind:
    "answered, but with none of vLLM's or SGLang's metric names (a tokenmeter gateway's page? give the upstream's with --server-metrics-url)",
  given: '--server-metrics-url',
};

export class MetricsPageScraper<Reading> {
  readonly #url: string;
  readonly #intervalMs: number;
  readonly #kind: PageKind<Reading>;
  readonly #samples: PageSample<Reading>[] = [];
  readonly #readCpuMs: number[] = [];
  #failed = 0;
  #skipped = 0;
  #pageBytes = 0;
  #timer: NodeJS.Timeout | undefined;
  #inFlight: Promise<void> | undefined;
  #unavailable: string | undefined;
  readonly #listeners: Array<(sample: PageSample<Reading>) => void> = [];

  protected constructor(url: string, intervalMs: number, kind: PageKind<Reading>) {
    this.#url = url;
    this.#intervalMs = intervalMs;
    this.#kind = kind;
  }

  /** Takes the baseline; with one, samples every interval until finish(). */
  static async open<Reading>(
    url: string,
    intervalMs: number,
    kind: PageKind<Reading>,
  ): Promise<MetricsPageScraper<Reading>> {
    return new MetricsPageScraper(url, intervalMs, kind).begin();
  }

  protected async begin(): Promise<this> {
    const problem = await this.#sample();
    if (problem !== undefined) {
      this.#unavailable = `${this.#kind.given} ${shownMetricsUrl(this.#url)} ${problem}`;
      return this;
    }
    this.#timer = setInterval(() => this.#tick(), this.#intervalMs);
    return this;
  }

  get available(): boolean {
    return this.#unavailable === undefined;
  }

  get samples(): readonly PageSample<Reading>[] {
    return this.#samples;
  }

  /** Called with each sample after the baseline (the early-stop rules read the waiting queue). */
  onSample(listener: (sample: PageSample<Reading>) => void): void {
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
    const fetched = await fetchMetricsPage(this.#url, Math.max(this.#intervalMs, MIN_SCRAPE_TIMEOUT_MS));
    if (!fetched.ok) return fetched.problem;
    const atMs = performance.now();
    const cpu = process.cpuUsage();
    const reading = this.#kind.read(fetched.page);
    this.#readCpuMs.push(cpuMsSince(cpu));
    this.#pageBytes = Math.max(this.#pageBytes, Buffer.byteLength(fetched.page));
    if (reading === null) return this.#kind.notThisKind;
    const sample = { atMs, reading };
    this.#samples.push(sample);
    for (const listener of this.#listeners) listener(sample);
    return undefined;
  }

  /** Stops the interval and takes the last sample (after the drain). */
  async finish(): Promise<PageScrape<Reading>> {
    clearInterval(this.#timer);
    await this.#inFlight;
    let lastAfterDrain = false;
    if (this.available) {
      if ((await this.#sample()) === undefined) lastAfterDrain = true;
      else this.#failed++;
    }
    return {
      url: shownMetricsUrl(this.#url),
      intervalMs: this.#intervalMs,
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

/** The server's own /metrics (--server-metrics-url, else the target's). */
export class ServerMetricsScraper extends MetricsPageScraper<ServerReading> {
  static async start(settings: ServerMetricsSettings, targetOrigin: string): Promise<ServerMetricsScraper> {
    const given = settings.url === undefined ? { ...SERVER_PAGE, given: "the target's" } : SERVER_PAGE;
    return new ServerMetricsScraper(
      metricsUrlFor(settings, targetOrigin),
      settings.intervalMs,
      given,
    ).begin();
  }
}
