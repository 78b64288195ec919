// --stop-on-saturation and --max-error-rate as a run feature (loadgen/feature.ts): a watch (early-stop.ts) sees each
// record and the server's waiting queue, checks its rules every interval, and stops the run the first time one
// holds. The rule that fired is saved as `tokenmeter.early_stop`, closes the report, and marks a sweep level that
// it cut short as fallen behind.

import { isJsonObject, type JsonValue } from '../../src/shared/json-object.js';
import type { RunFeature } from '../feature.js';
import { numberField, stringField, tokenmeterSection } from '../report/result-fields.js';
import { type EarlyStop, EarlyStopWatch } from './early-stop.js';
import { type EarlyStopReason, type EarlyStopSettings, ruleFlag, stopsEarly } from './early-stop-settings.js';

export const EARLY_STOP_KEY = 'early_stop';

export function earlyStopJson(stop: EarlyStop): JsonValue {
  return {
    reason: stop.reason,
    at_s: Number(stop.atS.toFixed(3)),
    window_s: stop.windowS,
    message: stop.message,
    figures: { ...stop.figures },
  };
}

/** "stopped early at 2.3 s by --stop-on-saturation: in the last 2 s ..." */
export function earlyStopReason(stop: EarlyStop): string {
  return `stopped early at ${stop.atS.toFixed(1)} s by ${ruleFlag(stop.reason)}: ${stop.message}`;
}

export const earlyStopFeature: RunFeature<
  EarlyStopSettings,
  EarlyStop,
  EarlyStop,
  { readonly earlyStop?: EarlyStopSettings }
> = {
  name: 'early stop',
  // Watched only when a rule is on (--stop-on-saturation, --max-error-rate).
  settingsOf: (run) => (stopsEarly(run.earlyStop) ? run.earlyStop : undefined),
  async start(settings, context) {
    const watch = new EarlyStopWatch(settings, context.dueMs, context.t0Ms);
    context.serverSamples.listen((sample) => watch.onServerSample(sample));
    let fired: EarlyStop | undefined;
    const timer = setInterval(() => {
      fired ??= watch.check();
      if (fired === undefined) return;
      clearInterval(timer);
      context.stopRun();
    }, settings.checkEveryMs);
    return {
      onRecord: (record, runStartMs) => watch.onRecord(record, runStartMs),
      stop: async () => clearInterval(timer),
      seen: () => fired,
    };
  },
  aggregate: (_settings, _records, seen) => seen,
  json: {
    write: (stop) => ({ [EARLY_STOP_KEY]: earlyStopJson(stop) }),
    read(result) {
      const saved = tokenmeterSection(result)[EARLY_STOP_KEY];
      if (!isJsonObject(saved)) return undefined;
      const figures = isJsonObject(saved['figures']) ? saved['figures'] : {};
      return {
        reason: (stringField(saved, 'reason') ?? 'saturation') as EarlyStopReason,
        atS: numberField(saved, 'at_s') ?? 0,
        windowS: numberField(saved, 'window_s') ?? 0,
        message: stringField(saved, 'message') ?? '',
        figures: Object.fromEntries(
          Object.entries(figures).filter((entry): entry is [string, number] => typeof entry[1] === 'number'),
        ),
      };
    },
  },
  report: {
    slot: 'closing',
    lines: (stop, { records, planned }) => [
      `Stopped early (${ruleFlag(stop.reason)}) at ` +
        `${stop.atS.toFixed(1)} s: ${stop.message}. ${records.length} of ${planned} ` +
        'requests have a record (those in flight were cancelled, as client_abort); the figures above describe only the part that ran.',
    ],
  },
  stopReason: earlyStopReason,
};
