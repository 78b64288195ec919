// How long this process was kept from running while a timing test ran: the worst event-loop delay, sampled at
// 1 ms resolution. A stall delays a chunk's arrival by the same amount whatever the code under test does, so
// timing tests add it to their tolerance: the bound follows what the machine did instead of a guess, and a real
// regression (a first token taken from a role-only delta, gaps bunched by buffering) still fails on a quiet run.
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface StallProbe {
  /** Stops sampling; the worst stall seen, in ms. */
  stop(): number;
}

export function measureStalls(): StallProbe {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  return {
    stop() {
      histogram.disable();
      // max is in nanoseconds and includes the 1 ms sampling interval itself.
      return Math.max(0, histogram.max / 1e6 - 1);
    },
  };
}

/**
 * The most a precise wait (loadgen/engine/precise-wait.ts) can send late, given the worst stall seen: 5 ms, plus
 * two stalls, because a wait crosses two event-loop turns that a stall can hold: its timer's, and the first spin
 * turn after it (its setImmediate turns cover the last 2 ms only, so once a stall carries the clock past the
 * target the next turn sends). One stall was not enough: at load 5-10 a replayed turn was sent 120 ms late with a
 * worst stall of 112 ms, and 328 ms late with 290 ms.
 */
export function waitLatenessBound(worstStallMs: number): number {
  return 5 + 2 * worstStallMs;
}
