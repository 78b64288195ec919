// The rates of a sweep and how long each level runs.
//
// Rates: given, or (auto) placed from two probes, as guidellm's sweep profile does: a synchronous probe (one
// request at a time: the unloaded latency and the rate one user gets) and a throughput probe (every request at
// once, or as many as --max-concurrency allows: the saturation throughput). guidellm then spaces constant rates
// from the synchronous rate up to the throughput rate, so its top level sits at saturation and no level is past
// it; here they run up to TOP_FRACTION of it, so the last level falls behind and the knee is bracketed.
//
// Length: a level is steady once it has run many times the time one request takes; it runs at least
// LEVEL_LATENCIES x the synchronous probe's median end-to-end latency (or --level-seconds), and at least
// --num-prompts requests, so its request count grows with its rate.

export const DEFAULT_STEPS = 5;
const TOP_FRACTION = 1.25;
export const LEVEL_LATENCIES = 25;
export const SYNC_PROBE_REQUESTS = 10;

/** "1,2,4,8" -> [1, 2, 4, 8] (sorted, duplicates removed). */
export function parseRates(text: string): number[] {
  const rates = text.split(',').map((part) => Number(part.trim()));
  if (rates.length === 0 || rates.some((r) => !Number.isFinite(r) || r <= 0)) {
    throw new Error(`--rates takes positive numbers separated by commas (got '${text}')`);
  }
  return [...new Set(rates)].sort((a, b) => a - b);
}

/** `steps` rates, evenly spaced from the synchronous rate (at most half of saturation) to 125% of saturation. */
export function ratesFromProbes(synchronousRps: number, saturatedRps: number, steps: number): number[] {
  const top = saturatedRps * TOP_FRACTION;
  const low = Math.min(synchronousRps, saturatedRps / 2);
  const rates: number[] = [];
  for (let k = 0; k < steps; k++) rates.push(Number((low + ((top - low) * k) / (steps - 1)).toPrecision(3)));
  return [...new Set(rates.filter((r) => r > 0))];
}

/** How long a level must run, from the median time one request takes alone. */
export function levelSecondsFromLatency(medianLatencyMs: number): number {
  return (LEVEL_LATENCIES * medianLatencyMs) / 1000;
}

export function levelRequests(rate: number, levelSeconds: number, minRequests: number): number {
  return Math.max(minRequests, Math.ceil(rate * levelSeconds));
}

// ---- What a level holds fixed: a rate, a concurrency or sessions ----
// What a sweep level holds fixed: a request rate (open loop: requests due on a schedule, whether or not the server
// keeps up) or a concurrency (every request due at once, at most N in flight: a request is sent when one finishes,
// so the load is set by the seats and the offered rate is whatever the server completes), or, replaying an agentic
// trace, a number of sessions in flight (each runs its turns with their recorded waits; the next session starts
// when one ends). A sweep moves one of them; this names a level's value in any, for the progress lines, the
// table, the knee and the capacity.

export type SweepParameter = 'rate' | 'concurrency' | 'sessions';

/** The largest --concurrencies level: a bound on client-controlled input (sockets in flight). */
export const MAX_CONCURRENCY_LEVEL = 4096;

/** "2.5 req/s", "concurrency 4" or "4 sessions". */
export function loadText(parameter: SweepParameter, value: number): string {
  if (parameter === 'sessions') return `${value} session${value === 1 ? '' : 's'}`;
  return parameter === 'concurrency' ? `concurrency ${value}` : `${Number(value.toFixed(3))} req/s`;
}

/** "1,2,4,8" -> [1, 2, 4, 8] (sorted, duplicates removed); whole numbers from 1 to MAX_CONCURRENCY_LEVEL. */
export function parseConcurrencies(text: string): number[] {
  const levels = text.split(',').map((part) => Number(part.trim()));
  if (levels.some((n) => !Number.isInteger(n) || n < 1 || n > MAX_CONCURRENCY_LEVEL)) {
    throw new Error(
      `--concurrencies takes whole numbers from 1 to ${MAX_CONCURRENCY_LEVEL} separated by commas (got '${text}')`,
    );
  }
  return [...new Set(levels)].sort((a, b) => a - b);
}
