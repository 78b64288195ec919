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
