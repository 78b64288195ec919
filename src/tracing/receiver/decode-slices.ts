// Decoding shares the event loop with the gateway's streams: a decoder is a generator that yields between small
// units of work (a few hundred fields), and runs here in slices of at most SLICE_MS, giving the loop a turn
// (setImmediate) between them. Exports are decoded one at a time, so what decoding holds in memory beyond the
// bodies is one export's spans, however many exports are being read.
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** A decoder's work: yields between units, returns its result. */
export type SlicedWork<T> = Generator<void, T, void>;

/** How long decoding holds the loop before it lets the rest of the process run. */
export const SLICE_MS = 4;

/** Runs `work` to its end in slices of at most about `sliceMs`, letting the loop run between them. */
export async function runInSlices<T>(work: SlicedWork<T>, sliceMs = SLICE_MS): Promise<T> {
  let sliceEnds = performance.now() + sliceMs;
  for (;;) {
    const step = work.next();
    if (step.done === true) return step.value;
    if (performance.now() >= sliceEnds) {
      await nextTurn();
      sliceEnds = performance.now() + sliceMs;
    }
  }
}

/** Runs `work` to its end at once, for callers that own their loop (benchmarks, tests of the decoders). */
export function runToEnd<T>(work: SlicedWork<T>): T {
  for (;;) {
    const step = work.next();
    if (step.done === true) return step.value;
  }
}

/** Runs jobs one at a time, in the order they came. */
export class OneAtATime {
  #last: Promise<unknown> = Promise.resolve();

  run<T>(job: () => Promise<T>): Promise<T> {
    const result = this.#last.then(job);
    // The next job waits for this one to settle, whichever way.
    this.#last = result.catch(() => {});
    return result;
  }
}

/** Counts a decoder's units of work and says when to yield: often enough that a slice ends close to SLICE_MS. */
export class Pace {
  #units = 0;

  /** True once every 256 calls. */
  tick(): boolean {
    return (++this.#units & 0xff) === 0;
  }
}
