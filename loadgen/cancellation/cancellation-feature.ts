// --request-cancellation-rate / -delay as a run feature (loadgen/feature.ts): the plan marks the chosen requests
// before the run is split into shards (cancellation-plan.ts); after the run, the chosen requests are counted,
// reported in one line after vLLM's block, and saved as `tokenmeter.cancellation`. A merge
// takes the plan from the shards' files (the same in each) and counts the union's records.

import { isJsonObject, type JsonValue, type JsonValueObject } from '../../src/shared/json-object.js';
import type { RunFeature } from '../feature.js';
import { cancelledAsPlanned, type RequestRecord } from '../record.js';
import { numberField, tokenmeterSection } from '../report/result-fields.js';
import { type CancellationSettings, cancellationDelays } from './cancellation-plan.js';

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

/** A run's planned cancellations: what was asked and what became of it. */
export interface RunCancellations {
  readonly settings: CancellationSettings;
  readonly counts: CancellationCounts;
}

function line(run: RunCancellations): string {
  const { settings, counts } = run;
  return (
    `Cancelled requests: ${counts.cancelled} (of ${counts.chosen} chosen at ${settings.ratePercent}%, ` +
    `${settings.delayMs / 1000} s after each was written; ${counts.endedBeforeDelay} ended before their delay). ` +
    'Not in completed, failed or any latency figure above.'
  );
}

function keys(run: RunCancellations): Record<string, JsonValue> {
  const { settings, counts } = run;
  return {
    cancellation: {
      rate_percent: settings.ratePercent,
      delay_s: settings.delayMs / 1000,
      chosen: counts.chosen,
      cancelled: counts.cancelled,
      ended_before_delay: counts.endedBeforeDelay,
    },
  };
}

function read(result: JsonValueObject): RunCancellations | undefined {
  const saved = tokenmeterSection(result)['cancellation'];
  if (!isJsonObject(saved)) return undefined;
  const ratePercent = numberField(saved, 'rate_percent');
  const delayS = numberField(saved, 'delay_s');
  if (ratePercent === null || delayS === null) return undefined;
  return {
    settings: { ratePercent, delayMs: delayS * 1000 },
    counts: {
      chosen: numberField(saved, 'chosen') ?? 0,
      cancelled: numberField(saved, 'cancelled') ?? 0,
      endedBeforeDelay: numberField(saved, 'ended_before_delay') ?? 0,
    },
  };
}

export const cancellationFeature: RunFeature<
  CancellationSettings,
  RunCancellations,
  CancellationSettings,
  { readonly cancellation?: CancellationSettings }
> = {
  name: 'cancellation',
  settingsOf: (run) => run.cancellation,
  // The chosen requests carry their delay; drawn over the whole run before it is split, so every shard agrees.
  prepare(requests, settings, seed) {
    const delays = cancellationDelays(requests.length, settings, seed);
    return requests.map((request, i) => {
      const cancelAfterMs = delays[i];
      return cancelAfterMs === undefined ? request : { ...request, cancelAfterMs };
    });
  },
  aggregate(settings, records, merged) {
    const asked = settings ?? merged;
    return asked === undefined ? undefined : { settings: asked, counts: cancellationCounts(records.all) };
  },
  merge: (parts) => parts[0]?.settings,
  json: { write: keys, read },
  report: { slot: 'after-summary', lines: (run) => [line(run)] },
};
