// When a shard's t = 0 is: every shard of a run must anchor its schedule at one wall-clock instant, or their
// union is not the one-process schedule. Three ways to name it:
//   --start-at ISO-TIME   an absolute instant (machines in NTP sync agree on it to a millisecond or so);
//   --start-delay S       S seconds after this process is ready (dataset loaded, model known), for shards started
//                         together by a scheduler (pods of an Indexed Job);
//   from the parent       `bench --workers N`: each worker says it is ready and the parent names the instant once
//                         all are (start-handshake.ts).
// Wall-clock instants are turned into performance.now() time once, when the wait begins; the schedule is timed on
// the monotonic clock from there.

import { performance } from 'node:perf_hooks';
import { UsageError, UserFacingError } from '../../src/shared/user-facing-error.js';
import { awaitStartFromParent } from './start-handshake.js';

export type StartInstant =
  | { readonly kind: 'at'; readonly epochMs: number; readonly text: string }
  | { readonly kind: 'delay'; readonly ms: number }
  | { readonly kind: 'parent' };

/** ISO 8601 with a date and time (2026-12-03T17:00:00Z); a time without a zone is the machine's local time. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** --start-at / --start-delay as typed; the start-at must still be ahead of `nowEpochMs`. */
export function startInstantFromFlags(
  startAt: string | undefined,
  startDelayS: number | undefined,
  nowEpochMs: number,
): StartInstant | undefined {
  if (startAt !== undefined && startDelayS !== undefined)
    throw new UsageError('give --start-at or --start-delay, not both');
  if (startDelayS !== undefined) return { kind: 'delay', ms: startDelayS * 1000 };
  if (startAt === undefined) return undefined;
  const epochMs = ISO_TIME.test(startAt.trim()) ? Date.parse(startAt.trim()) : Number.NaN;
  if (Number.isNaN(epochMs))
    throw new UsageError(`--start-at must be an ISO time such as 2026-12-03T17:00:00Z (got '${startAt}')`);
  if (epochMs <= nowEpochMs)
    throw new UsageError(
      `--start-at ${startAt} is in the past (now ${new Date(nowEpochMs).toISOString()}); give a later time`,
    );
  return { kind: 'at', epochMs, text: startAt };
}

/** The performance.now() instant of t = 0, called once the run is ready to send. */
export async function startTimeMs(start: StartInstant): Promise<number> {
  const epochToPerf = (epochMs: number): number => epochMs - performance.timeOrigin;
  if (start.kind === 'delay') return performance.now() + start.ms;
  if (start.kind === 'parent') return epochToPerf(await awaitStartFromParent());
  const at = epochToPerf(start.epochMs);
  if (at <= performance.now())
    throw new UserFacingError(
      `--start-at ${start.text} passed while this shard was getting ready; give a later time`,
    );
  return at;
}
