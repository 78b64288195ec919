// --request-cancellation-rate / --request-cancellation-delay (AIPerf's flags and units): a share of the run's
// requests is chosen, before the run, to be cancelled by the client a delay after it was sent, as a user closing
// the tab would. Which ones is drawn from its own seeded stream (hashSeed of the run's --seed), one draw per
// request of the whole run in schedule order, so the same --seed chooses the same requests, every shard of a split
// run agrees on them, and vLLM's own seeded draws (prompt order, arrival gaps: loadgen/vllm-random/) are untouched.
//
// The delay is AIPerf's: counted from the moment the request was written (headers and body handed to the
// socket), not from its intended send time, so the same delay cuts requests at the same point of their life
// whatever the client's queue did. A chosen request whose answer ends before its delay is not cancelled: it
// completes as any other (AIPerf does the same).

import { hashSeed, SeededRandom } from '../../src/shared/random.js';

export interface CancellationSettings {
  /** Percent of requests chosen, 0 to 100 (AIPerf's unit). */
  readonly ratePercent: number;
  /** From the request's write to its cancellation, ms (the flag is in seconds, as AIPerf's). */
  readonly delayMs: number;
}

/** For each of `count` requests in schedule order: its cancellation delay in ms when chosen, else undefined. */
export function cancellationDelays(
  count: number,
  settings: CancellationSettings,
  seed: number,
): Array<number | undefined> {
  const draws = new SeededRandom(hashSeed('request-cancellation', seed));
  const share = settings.ratePercent / 100;
  const delays: Array<number | undefined> = [];
  // One draw per request whatever the rate, so a request's fate depends on its position and the seed alone.
  for (let i = 0; i < count; i++) delays.push(draws.next() < share ? settings.delayMs : undefined);
  return delays;
}
