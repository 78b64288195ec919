// What a sweep level holds fixed: a request rate (open loop: requests due on a schedule, whether or not the server
// keeps up) or a concurrency (every request due at once, at most N in flight: a request is sent when one finishes,
// so the load is set by the seats and the offered rate is whatever the server completes). A sweep moves one of the
// two; this names a level's value in either, for the progress lines, the table, the knee and the capacity.

export type SweepParameter = 'rate' | 'concurrency';

/** The largest --concurrencies level: a bound on client-controlled input (sockets in flight). */
export const MAX_CONCURRENCY_LEVEL = 4096;

/** "2.5 req/s" or "concurrency 4". */
export function loadText(parameter: SweepParameter, value: number): string {
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
