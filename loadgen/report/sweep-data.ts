// What a sweep report draws: one row per offered rate, and the knee. Levels come either from result files
// (one per rate, as `sweep` saves them) or from a sweep summary JSON. The summary's exact shape belongs to
// the sweep command, so it is read tolerantly: a list under `levels`, `runs` or `results`, each entry a
// result object or flat figures under the names below, and the knee as a rate or an object with a sentence.

import { isJsonObject, type JsonValue, type JsonValueObject } from '../../src/shared/json-object.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';
import { isResultJson } from './read-result-file.js';
import { numberField, rateField, stringField, successRate } from './result-fields.js';

export interface SweepReportLevel {
  /** Offered request rate (req/s); Infinity for "all at once". */
  offeredRate: number;
  /** The level's --max-concurrency (vLLM's max_concurrency); null when it had none. */
  maxConcurrency: number | null;
  /** Completed requests per second actually achieved. */
  achievedRate: number | null;
  /** 0..1. */
  successRate: number | null;
  ttftP50Ms: number | null;
  ttftP99Ms: number | null;
  itlP99Ms: number | null;
  /** Mean TPOT (ms): 1000 / it is the output tokens per second one user sees (the Pareto chart's interactivity). */
  tpotMeanMs: number | null;
  outputThroughput: number | null;
  /** GPU energy per output token over the level (J; loadgen/gpu-metrics/), null without GPU figures. */
  energyPerOutputTokenJ: number | null;
  /** Seconds into the level at which --stop-on-saturation or --max-error-rate cut it short; null when none did. */
  stoppedEarlyAtS: number | null;
}

export interface SweepKnee {
  /**
   * The rate (or, on a concurrency axis, the concurrency) marked as the knee; null when the sentence names none
   * (no knee, or not enough data).
   */
  offeredRate: number | null;
  /** The first level that fell behind, marked beside it when known. */
  firstBadRate: number | null;
  /** The sweep's own sentence, shown as written: the page states the knee the text states. */
  sentence: string;
}

/** `sweep --slo`: the highest rate (or concurrency) at which every SLO held, and the sweep's sentence about it. */
export interface SweepCapacity {
  /** In the unit of the sweep's axis. */
  rate: number | null;
  sentence: string;
}

/** What the levels moved: their offered rate, or (every level at rate inf) their --max-concurrency. */
export type SweepAxis = 'rate' | 'concurrency';

/** A concurrency sweep: every level at rate inf, each with its own cap (bench runs or `sweep --concurrencies`). */
export function sweepAxis(levels: readonly SweepReportLevel[]): SweepAxis {
  const caps = new Set(levels.map((l) => l.maxConcurrency));
  return levels.length > 0 &&
    levels.every((l) => !Number.isFinite(l.offeredRate) && l.maxConcurrency !== null) &&
    caps.size === levels.length
    ? 'concurrency'
    : 'rate';
}

/** The level's place on the axis. */
export function axisValue(axis: SweepAxis, level: SweepReportLevel): number {
  return axis === 'concurrency' ? (level.maxConcurrency ?? Number.NaN) : level.offeredRate;
}

export interface SweepReportData {
  levels: SweepReportLevel[];
  knee: SweepKnee | null;
  /** What the server's metrics say bounded it at the knee (knee.cause), when the sweep read them. */
  kneeCause?: string;
  capacity?: SweepCapacity;
  /** The sweep's sentence when a level stopped early and the sweep stopped there. */
  stoppedEarly?: string;
  /** Settings shared by every level (model, backend, ...), shown in the report's header table. */
  settings?: Record<string, string | number | null>;
  source?: string;
}

function first(json: JsonValueObject, keys: readonly string[]): number | null {
  for (const key of keys) {
    const value = key.endsWith('rate') ? rateField(json, key) : numberField(json, key);
    if (value !== null) return value;
  }
  return null;
}

/** When the level's early stop fired: a summary entry's early_stop, or a result file's tokenmeter.early_stop. */
function stoppedEarlyAt(json: JsonValueObject): number | null {
  const own = json['tokenmeter'];
  const stop = json['early_stop'] ?? (isJsonObject(own) ? own['early_stop'] : undefined);
  return isJsonObject(stop) ? numberField(stop, 'at_s') : null;
}

/** One level from a result file, or from a summary entry with flat figures. */
export function sweepLevelFrom(json: JsonValueObject): SweepReportLevel | null {
  const offeredRate = first(json, ['offered_rate', 'request_rate', 'rate']);
  if (offeredRate === null) return null;
  const success = isResultJson(json) ? successRate(json) : first(json, ['success_rate']);
  return {
    offeredRate,
    maxConcurrency: first(json, ['max_concurrency']),
    achievedRate: first(json, ['achieved_rate', 'request_throughput']),
    successRate: success !== null && success > 1 ? success / 100 : success,
    ttftP50Ms: first(json, ['median_ttft_ms', 'p50_ttft_ms', 'ttft_p50_ms']),
    ttftP99Ms: first(json, ['p99_ttft_ms', 'ttft_p99_ms']),
    itlP99Ms: first(json, ['p99_itl_ms', 'itl_p99_ms']),
    tpotMeanMs: first(json, ['mean_tpot_ms']),
    energyPerOutputTokenJ: first(json, ['gpu_energy_per_output_token_j']),
    outputThroughput: first(json, ['output_throughput', 'output_tok_s', 'output_tokens_per_s']),
    stoppedEarlyAtS: stoppedEarlyAt(json),
  };
}

function kneeFrom(value: JsonValue | undefined, axis: SweepAxis): SweepKnee | null {
  if (typeof value === 'number')
    return { offeredRate: value, firstBadRate: null, sentence: `Knee at ${value} req/s.` };
  if (!isJsonObject(value)) return null;
  const rate =
    axis === 'concurrency'
      ? numberField(value, 'max_concurrency')
      : first(value, ['offered_rate', 'rate', 'request_rate']);
  const sentence =
    stringField(value, 'sentence') ?? stringField(value, 'message') ?? stringField(value, 'reason');
  if (rate === null && sentence === null) return null;
  const firstBad = numberField(value, axis === 'concurrency' ? 'first_bad_max_concurrency' : 'first_bad_rps');
  return {
    offeredRate: rate,
    firstBadRate: firstBad !== null && firstBad !== rate ? firstBad : null,
    sentence: sentence ?? `Knee at ${rate} req/s.`,
  };
}

export function isSweepSummary(value: JsonValue): value is JsonValueObject {
  return isJsonObject(value) && ['levels', 'runs', 'results'].some((key) => Array.isArray(value[key]));
}

/** A sweep summary JSON as report data; throws a UserFacingError naming the file when it has no levels. */
export function sweepFromSummary(path: string, json: JsonValueObject): SweepReportData {
  const list: JsonValue[] =
    ['levels', 'runs', 'results'].map((key) => json[key]).find((v) => Array.isArray(v)) ?? [];
  const levels = list
    .filter((entry): entry is JsonValueObject => isJsonObject(entry))
    .map(sweepLevelFrom)
    .filter((level): level is SweepReportLevel => level !== null);
  const axis = sweepAxis(levels);
  levels.sort((a, b) => axisValue(axis, a) - axisValue(axis, b));
  if (levels.length === 0) {
    throw new UserFacingError(`'${path}' is a sweep summary without any level that names its offered rate`);
  }
  const settings: Record<string, string | number | null> = {};
  for (const key of ['model_id', 'model', 'backend', 'base_url', 'date', 'label']) {
    const value = json[key];
    if (typeof value === 'string' || typeof value === 'number') settings[key] = value;
  }
  const knee =
    kneeFrom(json['knee'], axis) ??
    kneeFrom({ rate: json['knee_rate'] ?? null, sentence: json['knee_sentence'] ?? null }, 'rate');
  const cause = isJsonObject(json['knee']) ? json['knee']['cause'] : undefined;
  const kneeCause = isJsonObject(cause) ? stringField(cause, 'sentence') : null;
  const saved = json['slo_capacity'];
  const capacity = isJsonObject(saved)
    ? {
        rate: numberField(saved, axis === 'concurrency' ? 'capacity_concurrency' : 'capacity_rps'),
        sentence: stringField(saved, 'sentence') ?? '',
      }
    : undefined;
  const stopped = json['stopped_early'];
  const stoppedEarly = isJsonObject(stopped) ? stringField(stopped, 'sentence') : null;
  return {
    levels,
    knee,
    settings,
    source: path,
    ...(kneeCause === null ? {} : { kneeCause }),
    ...(stoppedEarly === null ? {} : { stoppedEarly }),
    ...(capacity === undefined ? {} : { capacity }),
  };
}
