// What became of the requests --request-cancellation-rate chose, and the one rule for what the run cancelled
// itself: those requests (outcome `cancelled`) and the ones its own stop cut (Ctrl-C, an early stop, a budget's
// --on-limit cancel: `client_abort`, which the load generator records for nothing else) are not failures of the
// server, for the early stop's error rate and the smoke test alike. The planned ones are also left out of every
// figure (vLLM's completed and failed included) and counted apart (cancellation-feature.ts).

import { PLANNED_CANCEL } from '../../src/measure/outcome.js';
import type { RequestRecord } from '../record.js';

/** True for a request the run cancelled on purpose or by its own stop: no failure of the server. */
export function cancelledByRun(record: Pick<RequestRecord, 'outcome'>): boolean {
  return record.outcome === PLANNED_CANCEL || record.outcome === 'client_abort';
}

/** True for a request cancelled as --request-cancellation-rate planned. */
export function cancelledAsPlanned(record: Pick<RequestRecord, 'outcome'>): boolean {
  return record.outcome === PLANNED_CANCEL;
}

/** A saved run's records as its figures saw them: without the planned cancellations (compare, the HTML report). */
export function withoutPlannedCancels<R extends Pick<RequestRecord, 'outcome'>>(records: readonly R[]): R[] {
  return records.filter((r) => !cancelledAsPlanned(r));
}

export interface CancellationCounts {
  /** Requests sent that the plan chose (a chosen request never sent has no record and is not counted). */
  readonly chosen: number;
  /** Of those, cancelled at their delay. */
  readonly cancelled: number;
  /** Chosen, but their answer ended before the delay (counted as any request: completed or failed). */
  readonly endedBeforeDelay: number;
}

export function cancellationCounts(records: readonly RequestRecord[]): CancellationCounts {
  const chosen = records.filter((r) => r.cancelDelayMs !== undefined);
  const cancelled = chosen.filter(cancelledAsPlanned).length;
  return { chosen: chosen.length, cancelled, endedBeforeDelay: chosen.length - cancelled };
}
