// One listener on the run's AbortSignal fanning out to every in-flight request, instead of one listener per
// request (thousands of listeners on one EventTarget trip Node's leak warning and make removal O(n)).

export class AbortHub {
  readonly #cancels = new Set<() => void>();
  readonly #signal: AbortSignal;
  readonly #onAbort = (): void => {
    for (const cancel of [...this.#cancels]) cancel();
    this.#cancels.clear();
  };

  constructor(signal: AbortSignal) {
    this.#signal = signal;
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  get aborted(): boolean {
    return this.#signal.aborted;
  }

  /** Registers a cancel function; returns its removal. Runs it at once if the run is already stopped. */
  add(cancel: () => void): () => void {
    if (this.#signal.aborted) {
      cancel();
      return () => undefined;
    }
    this.#cancels.add(cancel);
    return () => this.#cancels.delete(cancel);
  }

  dispose(): void {
    this.#signal.removeEventListener('abort', this.#onAbort);
  }
}
