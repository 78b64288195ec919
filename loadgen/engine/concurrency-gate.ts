// --max-concurrency on the client: at most `limit` requests in flight; the rest wait in arrival order. The wait
// is measured by the caller and recorded as client queue time (vLLM's client_queue_time), so it is never mistaken
// for server latency.

export class ConcurrencyGate {
  readonly #limit: number;
  #inFlight = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Resolves when a slot is free (at once when one is). */
  acquire(): Promise<void> | undefined {
    if (this.#inFlight < this.#limit) {
      this.#inFlight++;
      return undefined;
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next !== undefined)
      next(); // the slot passes straight to the next waiter
    else this.#inFlight--;
  }

  /** Wakes every waiter (used when the run stops; each then sees the abort and records itself as unsent). */
  drain(): void {
    for (const wake of this.#waiting.splice(0)) wake();
  }
}
