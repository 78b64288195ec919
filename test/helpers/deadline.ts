// Every wait in a test has a deadline, so a lost record or a server that never answers fails the test that
// waited, saying what it waited for, instead of hanging the suite until CI's own limit. The deadlines are far
// longer than what they wait for takes (milliseconds, on a loaded machine a few hundred), so they only ever fire
// when the awaited thing is not coming.
import { setTimeout as sleep } from 'node:timers/promises';

export const WAIT_DEADLINE_MS = 10_000;

/** `promise`, or a rejection naming `what` when it has not settled within `ms`. */
export async function withDeadline<T>(
  promise: Promise<T>,
  what: () => string,
  ms = WAIT_DEADLINE_MS,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`waited ${ms} ms for ${what()}`)), ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once `done()` holds, checking every 5 ms; rejects naming `what` after `ms`. */
export async function until(done: () => boolean, what: () => string, ms = WAIT_DEADLINE_MS): Promise<void> {
  const giveUpAt = performance.now() + ms;
  while (!done()) {
    if (performance.now() > giveUpAt) throw new Error(`waited ${ms} ms for ${what()}`);
    await sleep(5);
  }
}
