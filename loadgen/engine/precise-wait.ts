// Waits until a performance.now() instant with sub-millisecond accuracy, without blocking the event loop.
// setTimeout alone fires 1-2 ms late (and its delay is rounded to whole ms), which at a few hundred requests per
// second is already most of a gap; so: a timer for the bulk, then setImmediate turns (each lets I/O run) for the
// last stretch. The spin costs CPU only in the final SPIN_MS before each send.

import { performance } from 'node:perf_hooks';

const SPIN_MS = 5;

export function waitUntil(targetMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    let timer: NodeJS.Timeout | undefined;
    const spin = (): void => {
      if (signal?.aborted || performance.now() >= targetMs) {
        signal?.removeEventListener('abort', onAbort);
        resolve();
        return;
      }
      setImmediate(spin);
    };
    const remaining = targetMs - performance.now();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (remaining > SPIN_MS) timer = setTimeout(spin, Math.floor(remaining - SPIN_MS));
    else spin();
  });
}
