// Typed reads of a result file's keys. Files come from our bench, from vLLM's script (any version) or from a
// hand edit, so every read tolerates a missing or mistyped key and answers null rather than guessing.

import { isJsonObject, type JsonValueObject } from '../../src/shared/json-object.js';

/** A finite number under `key`, else null ("inf" rates are handled by `rateField`). */
export function numberField(json: JsonValueObject, key: string): number | null {
  const value = json[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function stringField(json: JsonValueObject, key: string): string | null {
  const value = json[key];
  return typeof value === 'string' ? value : null;
}

/** request_rate / burstiness: a number, or "inf" saved by vLLM for unlimited. */
export function rateField(json: JsonValueObject, key: string): number | null {
  const value = json[key];
  if (value === 'inf') return Number.POSITIVE_INFINITY;
  return typeof value === 'number' ? value : null;
}

/** Our extra section (`tokenmeter` key); empty for vLLM's own files. */
export function tokenmeterSection(json: JsonValueObject): JsonValueObject {
  const section = json['tokenmeter'];
  return isJsonObject(section) ? section : {};
}

/** A `{ mean_ms, median_ms, percentiles_ms: { p99 } }` block of our extras, by field ("mean_ms", "p99"). */
export function extraStat(json: JsonValueObject, metric: string, field: string): number | null {
  const stats = tokenmeterSection(json)[metric];
  if (!isJsonObject(stats)) return null;
  if (field.startsWith('p')) {
    const percentiles = stats['percentiles_ms'];
    return isJsonObject(percentiles) ? numberField(percentiles, field) : null;
  }
  return numberField(stats, field);
}

/** How a file's failed-request count was had: saved, or derived where vLLM before 0.9 wrote no `failed`. */
export type FailedSource = 'saved' | 'errors' | 'num_prompts' | null;

/**
 * Failed requests: the `failed` key; else (vLLM 0.8.5 and earlier write none) the non-empty entries of a
 * --save-detailed `errors` array; else num_prompts - completed (those versions sent exactly num_prompts
 * requests). Null when none of these is there.
 */
export function failedCount(json: JsonValueObject): { value: number | null; source: FailedSource } {
  const saved = numberField(json, 'failed');
  if (saved !== null) return { value: saved, source: 'saved' };
  const errors = json['errors'];
  if (Array.isArray(errors))
    return { value: errors.filter((e) => typeof e === 'string' && e !== '').length, source: 'errors' };
  const prompts = numberField(json, 'num_prompts');
  const completed = numberField(json, 'completed');
  if (prompts !== null && completed !== null && prompts >= completed)
    return { value: prompts - completed, source: 'num_prompts' };
  return { value: null, source: null };
}

/**
 * Share of requests that completed, 0..1: ours when saved, else completed / (completed + failed) as vLLM's
 * files allow. Null when neither is there.
 */
export function successRate(json: JsonValueObject): number | null {
  const saved = numberField(tokenmeterSection(json), 'success_rate');
  if (saved !== null) return saved;
  const completed = numberField(json, 'completed');
  const failed = failedCount(json).value;
  if (completed === null || failed === null || completed + failed === 0) return null;
  return completed / (completed + failed);
}

/** Percentile words present for a metric, e.g. ["99", "99.9"] from p99_ttft_ms and p99.9_ttft_ms. */
export function percentileWords(json: JsonValueObject, metric: string): string[] {
  const pattern = new RegExp(`^p(\\d+(?:\\.\\d+)?)_${metric}_ms$`);
  const words: string[] = [];
  for (const key of Object.keys(json)) {
    const word = pattern.exec(key)?.[1];
    if (word !== undefined) words.push(word);
  }
  return words.sort((a, b) => Number(a) - Number(b));
}
