// `tokenmeter top`: reads every given gateway's `/metrics` each interval and shows one row per upstream and
// model over a sliding window. Three ways out: a full-screen view on a terminal, one frame after another in a
// pipe, or a single frame with `--once` (two readings one interval apart, since rates need two).

import { setTimeout as sleep } from 'node:timers/promises';
import { renderFrame } from './render-frame.js';
import { type Scrape, scrapeGateway } from './scrape.js';
import { SlidingWindow } from './sliding-window.js';
import { TerminalScreen } from './terminal-screen.js';
import { SORT_KEYS, type SortKey, topTable } from './top-rows.js';

export interface TopSettings {
  /** Metrics page URLs, already normalized (see metricsUrlOf). */
  readonly urls: readonly string[];
  readonly intervalSeconds: number;
  readonly windowSeconds: number;
  readonly sortKey: SortKey;
  readonly once: boolean;
  /** The gateways' metrics token, read from the variable --metrics-token-env names; null when not needed. */
  readonly metricsToken: string | null;
}

const CTRL_C = '\u0003';
const KEYS_LINE = 'q quit  s sort by next column (rps, ttft, errors, name)';

class TopSession {
  readonly #settings: TopSettings;
  readonly #window: SlidingWindow;
  #lastScrapes: readonly Scrape[] = [];
  sortKey: SortKey;

  constructor(settings: TopSettings) {
    this.#settings = settings;
    this.#window = new SlidingWindow(settings.windowSeconds);
    this.sortKey = settings.sortKey;
  }

  /** Reads every gateway once, in parallel, and returns the frame as lines. */
  async frame(): Promise<{ lines: string[]; reached: number }> {
    const timeoutMs = Math.max(500, this.#settings.intervalSeconds * 1000);
    const scrapes = await Promise.all(
      this.#settings.urls.map((url) => scrapeGateway(url, timeoutMs, this.#settings.metricsToken)),
    );
    for (const scrape of scrapes) {
      if (scrape.ok) this.#window.add(scrape.reading);
      else this.#window.forget(scrape.url);
    }
    this.#lastScrapes = scrapes;
    return { lines: this.render(), reached: scrapes.filter((scrape) => scrape.ok).length };
  }

  /** The frame of the last readings, e.g. again after the sort order changed. */
  render(): string[] {
    const scrapes = this.#lastScrapes;
    const windows = this.#settings.urls.map((url) => this.#window.increaseOf(url));
    return renderFrame({
      at: new Date(),
      scrapes,
      ...topTable(windows, this.sortKey),
      windowSeconds: Math.max(0, ...windows.map((window) => window.seconds)),
      sortKey: this.sortKey,
    });
  }
}

/** How a session ended: `--once` with at least one gateway read or not, or stopped by q or by a signal. */
export type TopEnd = 'shown' | 'unreachable' | 'quit' | 'interrupted';

export async function runTop(
  settings: TopSettings,
  output: NodeJS.WriteStream,
  input: NodeJS.ReadStream,
): Promise<TopEnd> {
  const session = new TopSession(settings);
  const intervalMs = settings.intervalSeconds * 1000;
  if (settings.once) {
    await session.frame();
    await sleep(intervalMs);
    const { lines, reached } = await session.frame();
    output.write(`${lines.join('\n')}\n`);
    return reached > 0 ? 'shown' : 'unreachable';
  }
  const stop = new AbortController();
  let end: TopEnd = 'quit';
  const onSignal = () => {
    end = 'interrupted';
    stop.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const screen = output.isTTY ? new TerminalScreen(output, input) : null;
  try {
    screen?.enter((key) => {
      if (key === CTRL_C) onSignal();
      else if (key === 'q') stop.abort();
      else if (key === 's') {
        session.sortKey = SORT_KEYS[(SORT_KEYS.indexOf(session.sortKey) + 1) % SORT_KEYS.length] as SortKey;
        screen.draw([...session.render(), '', KEYS_LINE]);
      }
    });
    while (!stop.signal.aborted) {
      const { lines } = await session.frame();
      if (screen === null) output.write(`${lines.join('\n')}\n\n`);
      else screen.draw([...lines, '', KEYS_LINE]);
      await sleep(intervalMs, undefined, { signal: stop.signal }).catch(() => undefined);
    }
  } finally {
    screen?.restore();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return end;
}
