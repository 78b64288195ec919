// A bench run's --threshold list and default success floor, held against the figures its result JSON carries. The
// JSON is built here with every latency metric and the thresholds' percentiles as well as --metric-percentiles',
// so `ttft_p50 < 200ms` can be checked on a run that reports only p99, with the very code that saves the file.

import { LATENCY_METRICS } from '../metrics/metric-options.js';
import { buildResultJson, type RunDescription } from '../report/result-json.js';
import { checkThresholds, percentilesRead, type ThresholdCheck } from '../thresholds/check-thresholds.js';
import { measuredRecords } from './interruption.js';
import { type BenchRunResult, runFigures } from './run-bench.js';
import type { BenchSettings } from './settings.js';

export function runChecks(
  result: BenchRunResult,
  settings: BenchSettings,
  run: RunDescription,
): ThresholdCheck[] {
  if (settings.thresholds.length === 0 && !settings.successFloor) return [];
  const percentiles = [...new Set([...settings.metricPercentiles, ...percentilesRead(settings.thresholds)])];
  // The figures the report shows: without what the run cancelled on purpose or by its interruption.
  const measured = measuredRecords(result.records, result.interruption);
  const { metrics, extra } = runFigures(measured, result.durationMs, settings, percentiles);
  const json = buildResultJson(
    { ...run, percentileMetrics: LATENCY_METRICS },
    metrics,
    extra,
    measured,
    false,
  );
  return checkThresholds(json, settings.thresholds, settings.successFloor);
}
