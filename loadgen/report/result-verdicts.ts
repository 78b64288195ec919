// The verdicts of a saved run, through the same `verdicts` code as the live summary. Failures by kind come
// from the file's own `tokenmeter.failures_by_kind` when present: it keeps the first error and its body
// apart, which the flat vLLM `errors` strings do not. Without detailed arrays only the failure and
// success-rate verdicts can be given; the caller is told so it can say it.

import { outcomeNamed } from '../../src/measure/outcome.js';
import { isJsonObject, type JsonValueObject } from '../../src/shared/json-object.js';
import { partsOfResult } from '../features.js';
import { type ExtraMetrics, extraMetrics, type FailureKind } from '../metrics/extra-metrics.js';
import type { RequestRecord } from '../record.js';
import { runVerdicts } from '../server-metrics/server-verdict.js';
import { numberField, successRate, tokenmeterSection } from './result-fields.js';
import type { Verdict } from './verdicts.js';

function savedFailures(json: JsonValueObject): ExtraMetrics['failuresByKind'] | null {
  const saved = tokenmeterSection(json)['failures_by_kind'];
  if (!isJsonObject(saved)) return null;
  const kinds: ExtraMetrics['failuresByKind'] = {};
  for (const [word, entry] of Object.entries(saved)) {
    // Files saved by 0.1 name some outcomes by their old words (timeout, connect_error, aborted).
    const outcome = outcomeNamed(word);
    if (!isJsonObject(entry) || outcome === undefined || outcome === 'ok') continue;
    const statuses: Record<string, number> = {};
    const savedStatuses = entry['statuses'];
    if (isJsonObject(savedStatuses)) {
      for (const [status, count] of Object.entries(savedStatuses)) {
        if (typeof count === 'number') statuses[status] = count;
      }
    }
    const text = (key: string): string | null => {
      const value = entry[key];
      return typeof value === 'string' ? value : null;
    };
    const kind: FailureKind = {
      count: numberField(entry, 'count') ?? 0,
      firstIndex: numberField(entry, 'first_index') ?? 0,
      firstError: text('first_error'),
      firstBodyExcerpt: text('first_body_excerpt'),
      statuses,
    };
    kinds[outcome] = kind;
  }
  return kinds;
}

export interface ResultVerdicts {
  list: Verdict[];
  /** False when the file lacks the per-request arrays, so TTFT-spread and schedule-lag checks were skipped. */
  complete: boolean;
}

export function resultVerdicts(
  json: JsonValueObject,
  records: readonly RequestRecord[] | null,
): ResultVerdicts {
  const extra = extraMetrics(records ?? [], [99]);
  const failures = savedFailures(json);
  if (failures !== null) extra.failuresByKind = failures;
  if (records === null) {
    extra.total = (numberField(json, 'completed') ?? 0) + (numberField(json, 'failed') ?? 0);
    extra.successRate = successRate(json) ?? 0;
  }
  // With what the features' parts attribute them to, read back from the file, as bench said it after the run.
  const list = runVerdicts(records ?? [], extra, partsOfResult(json));
  return { list, complete: records !== null };
}
