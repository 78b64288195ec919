// When the primary starts a replacement for a worker that died: at once-ish after a worker that had run a
// while, and twice as late after each worker in that slot that died soon after it started, up to a ceiling. So a
// worker killed once is back within a tenth of a second, and one that crashes at start (a bad upstream
// certificate, a full disk at open) is retried every half minute rather than spinning a core.
export const FIRST_RESTART_DELAY_MS = 100;
export const MAX_RESTART_DELAY_MS = 30_000;
/** A worker that lived this long counts as having run: its slot's backoff starts over. */
export const STABLE_AFTER_MS = 10_000;

export class RestartBackoff {
  #quickDeaths = 0;

  /** The delay before the next start, given how long the worker that just died had lived. */
  next(livedMs: number): number {
    if (livedMs >= STABLE_AFTER_MS) this.#quickDeaths = 0;
    const delay = Math.min(MAX_RESTART_DELAY_MS, FIRST_RESTART_DELAY_MS * 2 ** this.#quickDeaths);
    this.#quickDeaths++;
    return delay;
  }
}
