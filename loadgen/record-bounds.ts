// What a load generator's record read back from a file may hold, for the tools that compute from records
// (`merge`, `compare`): a records file is any file a user names, and a time of 1e300 ms once reached the peak
// throughput's per-second bins and ended `merge` with a RangeError and a stack trace. A record past these bounds
// was not written by a run; the file is refused in one line instead.
import type { RequestRecord } from './record.js';

/**
 * Longest time a record may hold, from the run's start or its send: 10^9 ms, about 11.6 days, longer than any
 * benchmark run (the soak is 10 minutes), and short enough that the run's per-second figures fit in memory.
 */
export const MAX_RECORD_TIME_MS = 1_000_000_000;

const TIME_FIELDS = [
  'intendedOffsetMs',
  'sentAtMs',
  'clientQueueMs',
  'ttfbMs',
  'ttftMs',
  'ttfoMs',
  'lastTokenMs',
  'cancelDelayMs',
  'cancelledAtMs',
] as const;

function plausibleTime(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    (typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= MAX_RECORD_TIME_MS)
  );
}

/** Why `record` cannot be from a run (a time or an index out of bounds), or undefined when it can. */
export function implausibleRecord(record: RequestRecord): string | undefined {
  const index: unknown = record.index;
  if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0)
    return `a record's index is ${String(index)}, not a request's position`;
  for (const field of TIME_FIELDS) {
    const value: unknown = record[field];
    if (!plausibleTime(value))
      return `request #${index}'s ${field} is ${String(value)}, past any run (times are within ${MAX_RECORD_TIME_MS.toLocaleString('en-US')} ms, about 11.6 days)`;
  }
  const gaps: unknown = record.itlMs;
  if (gaps !== undefined && !Array.isArray(gaps)) return `request #${index}'s itlMs is not a list`;
  const gap = (gaps as unknown[] | undefined)?.find((g) => !plausibleTime(g) || g === null);
  if (gap !== undefined)
    return `request #${index}'s itlMs holds ${String(gap)}, past any run (times are within ${MAX_RECORD_TIME_MS.toLocaleString('en-US')} ms)`;
  return undefined;
}
