// --save-result / --save-detailed: vLLM's JSON (same keys, same file name pattern) plus our "tokenmeter" key,
// which also says what was measured from where (the target) and where the run's records file is.

import { appendFileSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { packageVersion } from '../../src/shared/package-version.js';
import { breakdownKeys } from '../breakdown/breakdown-json.js';
import { costResultJson } from '../cost/cost-report.js';
import { writeHtmlReport } from '../report/html/write-html-report.js';
import { buildResultJson, type RunDescription, resultFileName } from '../report/result-json.js';
import { baseUrlOf } from '../report/run-target.js';
import { sessionsResultKeys, turnFigures } from '../report/session-turns.js';
import { serverMetricsKeys } from '../server-metrics/server-metrics-keys.js';
import type { ThresholdCheck } from '../thresholds/check-thresholds.js';
import { recordsLostKeys } from './records-file.js';
import type { BenchRunResult } from './run-bench.js';
import type { BenchSettings } from './settings.js';

export function describeRun(
  settings: BenchSettings,
  modelId: string,
  tokenizerId: string,
  date: Date,
  planned: number,
): RunDescription {
  return {
    date,
    backend: settings.target.backend,
    ...(settings.save.label === undefined ? {} : { label: settings.save.label }),
    modelId,
    tokenizerId,
    numPrompts: planned,
    requestRate: settings.requestRate,
    burstiness: settings.burstiness,
    ...(settings.maxConcurrency === undefined ? {} : { maxConcurrency: settings.maxConcurrency }),
    metadata: { ...settings.save.metadata },
    percentileMetrics: settings.percentileMetrics,
    ...(settings.cost.price === undefined ? {} : { price: settings.cost.price }),
    target: {
      baseUrl: baseUrlOf(settings.target.origin, settings.target.path),
      tokenmeterVersion: packageVersion(),
      host: hostname(),
    },
  };
}

/** The result file's path (also used to name the records file next to it). */
export function resultPath(settings: BenchSettings, run: RunDescription): string {
  return join(settings.save.dir, settings.save.filename ?? resultFileName(run));
}

/** The records file named after a result file: `run.json` -> `run.records.jsonl`. */
export function recordsBesideResult(resultFile: string): string {
  return `${resultFile.replace(/\.json$/, '')}.records.jsonl`;
}

/** Where a run's records go: --records-file, else beside its result file; null with --no-records. */
export function recordsPathFor(settings: BenchSettings, resultFile: string): string | null {
  return settings.recordsFile === null ? null : (settings.recordsFile ?? recordsBesideResult(resultFile));
}

export function saveResult(
  path: string,
  run: RunDescription,
  result: BenchRunResult,
  detailed: boolean,
  checks: readonly ThresholdCheck[] = [],
  /** --append-result: add the JSON as one line to the file (vLLM's form) instead of replacing it. */
  append = false,
): void {
  // Relative to the result, so the pair can be moved or shared together.
  const recordsFile = result.recordsPath === null ? undefined : relative(dirname(path), result.recordsPath);
  const described = recordsFile === undefined ? run : { ...run, recordsFile };
  const json = buildResultJson(described, result.metrics, result.extra, result.records, detailed, checks, {
    ...costResultJson(result, run.price),
    ...breakdownKeys(result.breakdown, detailed),
    ...(result.sessions === undefined
      ? {}
      : sessionsResultKeys(turnFigures(result.records), result.sessions)),
    ...recordsLostKeys(result.recordsCounts),
    ...serverMetricsKeys(result),
  });
  mkdirSync(join(path, '..'), { recursive: true });
  if (!append) {
    writeFileSync(path, `${JSON.stringify(json, null, 2)}\n`);
    return;
  }
  // vLLM writes each result as one line, a newline between them.
  const empty = (statSync(path, { throwIfNoEntry: false })?.size ?? 0) === 0;
  appendFileSync(path, `${empty ? '' : '\n'}${JSON.stringify(json)}`);
}

/** `--html FILE`: the run's report page, always from the detailed result (the charts need per-request data). */
export async function saveHtmlReport(
  path: string,
  run: RunDescription,
  result: BenchRunResult,
): Promise<void> {
  const json = buildResultJson(run, result.metrics, result.extra, result.records, true, [], {
    ...costResultJson(result, run.price),
    ...breakdownKeys(result.breakdown, true),
    ...serverMetricsKeys(result),
  });
  await writeHtmlReport('run', { result: json }, path);
}
