// The last few seconds of each gateway's readings, and what its counters grew by across them. Like PromQL's
// `increase()`: a counter that went down means the gateway restarted, and then its new value is the growth.

import type { GatewayReading } from './gateway-reading.js';

export interface WindowIncrease {
  /** Seconds between the oldest and newest reading in the window; 0 until there are two. */
  readonly seconds: number;
  readonly increase: ReadonlyMap<string, number>;
}

export class SlidingWindow {
  readonly #windowMs: number;
  readonly #readings = new Map<string, GatewayReading[]>();

  constructor(windowSeconds: number) {
    this.#windowMs = windowSeconds * 1000;
  }

  add(reading: GatewayReading): void {
    const readings = this.#readings.get(reading.url) ?? [];
    readings.push(reading);
    // Keep the newest reading at or before the window's start too: it is the base the increase is taken from.
    const start = reading.atMs - this.#windowMs;
    while (readings.length > 2 && (readings[1] as GatewayReading).atMs <= start) readings.shift();
    this.#readings.set(reading.url, readings);
  }

  /** Forget a gateway that stopped answering, so its old counters do not count when it comes back. */
  forget(url: string): void {
    this.#readings.delete(url);
  }

  increaseOf(url: string): WindowIncrease {
    const readings = this.#readings.get(url) ?? [];
    const oldest = readings[0];
    const newest = readings.at(-1);
    if (oldest === undefined || newest === undefined || newest === oldest) {
      return { seconds: 0, increase: new Map() };
    }
    const increase = new Map<string, number>();
    for (const [key, now] of newest.counters) {
      const before = oldest.counters.get(key) ?? 0;
      increase.set(key, now >= before ? now - before : now);
    }
    return { seconds: (newest.atMs - oldest.atMs) / 1000, increase };
  }
}
