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
