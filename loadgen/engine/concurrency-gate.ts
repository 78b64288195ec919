// --max-concurrency on the client: at most `limit` requests in flight; the rest wait in arrival order. The gate
// also says when the slot a request takes became free, so the engine can tell the wait the cap imposed (recorded
// as client queue time, vLLM's client_queue_time, never mistaken for server latency) from lateness of its own.

export class ConcurrencyGate {
  /** When each free slot became free, oldest first (-Infinity: free since the run began). */
  readonly #freeSince: number[];
  readonly #waiting: Array<(freedAtMs: number) => void> = [];

  constructor(limit: number) {
    this.#freeSince = new Array<number>(limit).fill(Number.NEGATIVE_INFINITY);
  }

  /**
   * Takes a slot: at once when one is free (the moment the oldest free slot became free), otherwise a promise
   * of the moment a release hands one over.
   */
  acquire(): number | Promise<number> {
    const since = this.#freeSince.shift();
    if (since !== undefined) return since;
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Gives a slot back at `nowMs`: straight to the next waiter when there is one. */
  release(nowMs: number): void {
    const next = this.#waiting.shift();
    if (next !== undefined) next(nowMs);
    else this.#freeSince.push(nowMs);
  }

  /** Wakes every waiter (used when the run stops; each then sees the abort and records itself as unsent). */
  drain(nowMs: number): void {
    for (const wake of this.#waiting.splice(0)) wake(nowMs);
  }
}
