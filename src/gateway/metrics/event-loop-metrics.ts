// The gateway's event loop, as a load signal that costs nothing between scrapes. prom-client's default metrics
// sample the loop's delay with a libuv timer firing every 10 ms: those 100 wake-ups a second were about half of an
// idle gateway's CPU (7 of 14 ms a second) and, in bench/gateway-overhead.ts at concurrency 16, about 0.18 ms of
// CPU per proxied request (2.18 against 2.37 ms, side by side, 2026-12-06). A delay sampled every 10 ms also reads 10 ms
// when nothing is late, so its percentiles carried the sampling period rather than the wait.
//
// What replaces them: libuv's own count of the time the loop spent running callbacks (Node's
// `performance.eventLoopUtilization()`), read only when scraped, as a counter; `rate()` of it is the loop's
// utilization, 1 meaning saturated. prom-client's scrape-time `tokenmeter_nodejs_eventloop_lag_seconds` (one
// setImmediate per scrape) stays.
import { performance } from 'node:perf_hooks';
import { Counter, type Registry } from 'prom-client';

/** prom-client's delay-histogram gauges, removed from the registry (see above). */
export const SAMPLED_LAG_GAUGES = ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'].map(
  (stat) => `tokenmeter_nodejs_eventloop_lag_${stat}_seconds`,
);

/**
 * prom-client always starts its delay monitor and has no option to leave it out: sampling once a second, it costs
 * one wake-up a second, and its gauges are removed.
 */
export const LAG_MONITOR_PERIOD_MS = 1000;

export function registerEventLoopMetrics(registry: Registry): void {
  for (const name of SAMPLED_LAG_GAUGES) registry.removeSingleMetric(name);
  let countedMs = 0;
  new Counter({
    name: 'tokenmeter_eventloop_busy_seconds_total',
    help: "Seconds the gateway's event loop spent running callbacks rather than waiting for events (libuv's event-loop utilization); rate() is the loop's utilization, 1 = saturated",
    registers: [registry],
    collect() {
      const busyMs = performance.eventLoopUtilization().active;
      this.inc((busyMs - countedMs) / 1000);
      countedMs = busyMs;
    },
  });
}
