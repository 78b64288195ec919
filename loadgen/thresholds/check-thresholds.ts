// A run's thresholds held against its figures, as read from its result JSON: each with its value and pass/fail,
// for the report, the saved result and the exit status. The default success floor is checked the same way and
// listed with them; it differs only in what its failure means (the run failed, not a threshold).

import type { JsonValue } from '../../src/shared/json-object.js';
import { DEFAULT_VERDICT_THRESHOLDS } from '../report/verdicts.js';
import { keeps, parseThreshold, type Threshold } from './threshold.js';

/** The article's rule: below 90% successes the other figures describe a broken run, so the run failed. */
export const SUCCESS_FLOOR: Threshold = parseThreshold(
  `success_rate >= ${DEFAULT_VERDICT_THRESHOLDS.minSuccessRate}`,
);

export interface ThresholdCheck {
  readonly threshold: Threshold;
  /** The run's figure in the metric's unit; null when the run has none (e.g. no request succeeded). */
  readonly value: number | null;
  readonly passed: boolean;
  /** The default success floor (its failure fails the run) rather than a --threshold. */
  readonly successFloor: boolean;
}

function valueAt(json: Readonly<Record<string, JsonValue>>, path: readonly string[]): number | null {
  let node: JsonValue | undefined = json;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return null;
    node = node[key];
  }
  return typeof node === 'number' && Number.isFinite(node) ? node : null;
}

/** Percentiles the thresholds read, to be computed beside the ones --metric-percentiles reports. */
export function percentilesRead(thresholds: readonly Threshold[]): number[] {
  return thresholds.flatMap((t) => (t.metric.percentile === undefined ? [] : [t.metric.percentile]));
}

export function checkThresholds(
  json: Readonly<Record<string, JsonValue>>,
  thresholds: readonly Threshold[],
  successFloor: boolean,
): ThresholdCheck[] {
  const check = (threshold: Threshold, isFloor: boolean): ThresholdCheck => {
    const value = valueAt(json, threshold.metric.path);
    return { threshold, value, passed: keeps(threshold, value), successFloor: isFloor };
  };
  return [...thresholds.map((t) => check(t, false)), ...(successFloor ? [check(SUCCESS_FLOOR, true)] : [])];
}

/** The checks as the result JSON lists them (under "tokenmeter"). */
export function thresholdChecksJson(checks: readonly ThresholdCheck[]): JsonValue {
  return checks.map((c) => ({
    threshold: c.threshold.text,
    metric: c.threshold.metric.name,
    unit: c.threshold.metric.unit,
    value: c.value,
    passed: c.passed,
    source: c.successFloor ? 'success_floor' : 'threshold',
  }));
}
