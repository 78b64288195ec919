// --save-result / --save-detailed: vLLM's JSON (same keys, same file name pattern) plus our "tokenmeter" key,
// which also says what was measured from where (the target) and where the run's records file is.

import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, relative } from 'node:path';
import type { JsonValue } from '../../src/shared/json-object.js';
import { packageVersion } from '../../src/shared/package-version.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';
import { costResultJson } from '../cost/cost-report.js';
import { TIMELINE_THRESHOLDS_KEY } from '../report/html/timeline-chart.js';
import { interruptionKeys } from '../report/interruption.js';
import {
  buildResultJson,
  type RunDescription,
  resultFileName,
  resultJsonText,
} from '../report/result-json.js';
import { baseUrlOf } from '../report/run-target.js';
import type { ThresholdCheck } from '../thresholds/check-thresholds.js';
import { type BenchRunResult, vllmSectionsOf } from './aggregate.js';
import { featureKeys } from './features.js';
import type { Say } from './prepare-run.js';
import { fileExists, recordsLostKeys } from './records-file.js';
import type { BenchSettings } from './settings.js';

export function describeRun(
  settings: BenchSettings,
  modelId: string,
  /** The tokenizer that counted (Tokenizer.name: `builtin`, or where its tokenizer.json came from). */
  tokenizerName: string,
  date: Date,
  planned: number,
): RunDescription {
  return {
    date,
    backend: settings.target.backend,
    ...(settings.save.label === undefined ? {} : { label: settings.save.label }),
    modelId,
    // vLLM's rule: --tokenizer as given, else the model; the one that counted is tokenmeter.tokenizer.
    tokenizerId: settings.tokenizer ?? modelId,
    tokenizerName,
    numPrompts: planned,
    requestRate: settings.requestRate,
    burstiness: settings.burstiness,
    ...(settings.maxConcurrency === undefined ? {} : { maxConcurrency: settings.maxConcurrency }),
    ...(settings.rampUp === undefined ? {} : { rampUp: settings.rampUp }),
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

/**
 * The result file's path (also used to name the records file next to it). A shard's default name carries the
 * shard (`...-20261203-170000-shard1of3.json`), so shards started at once into one folder never share a file.
 * The default name is vLLM's, stamped to the second; where a run of the same second already left that result or
 * its records file (two runs started in one second, as a script's loop does), it gets `-2`, `-3`, ... rather than
 * being refused: vLLM would overwrite the earlier run, and a typed name is still the user's to choose.
 */
export function resultPath(settings: BenchSettings, run: RunDescription): string {
  if (settings.save.filename !== undefined) return join(settings.save.dir, settings.save.filename);
  const { shard } = settings;
  const stem = resultFileName(run).replace(
    /\.json$/,
    shard === undefined ? '' : `-shard${shard.index}of${shard.count}`,
  );
  const candidate = (n: number): string => join(settings.save.dir, `${stem}${n === 1 ? '' : `-${n}`}.json`);
  // --append-result adds to the file of that name on purpose.
  if (settings.appendResult === true) return candidate(1);
  for (let n = 1; n < MAX_SAME_SECOND_RUNS; n++) {
    const path = candidate(n);
    const records = settings.recordsFile === undefined ? recordsBesideResult(path) : null;
    if (!existsSync(path) && (records === null || !existsSync(records))) return path;
  }
  return candidate(MAX_SAME_SECOND_RUNS);
}

/** Past this many runs in one second, the last name is taken and refused as any existing file is. */
const MAX_SAME_SECOND_RUNS = 100;

/**
 * Creates the result file, empty, before the run sends anything, refusing one already there (another shard's,
 * an earlier run's): the run fills it when it ends. Exclusive creation, so two shards started at once with one
 * name cannot both pass.
 */
export function claimResultFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'EEXIST') throw fileExists(path);
    throw new UserFacingError(`cannot write the result file ${path}: ${(error as Error).message}`);
  }
  closeSync(fd);
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
  /** --timeline-itl-thresholds, kept for the HTML report made from the file later. */
  itlThresholdsMs?: readonly [number, number],
): void {
  // Relative to the result, so the pair can be moved or shared together.
  const recordsFile = result.recordsPath === null ? undefined : relative(dirname(path), result.recordsPath);
  const described = recordsFile === undefined ? run : { ...run, recordsFile };
  const json = buildResultJson(
    described,
    result.metrics,
    result.extra,
    result.records,
    detailed,
    checks,
    {
      ...costResultJson(result, run.price),
      ...recordsLostKeys(result.recordsCounts),
      ...interruptionKeys(result.interruption),
      ...featureKeys(result.parts, detailed),
      ...timelineKeys(itlThresholdsMs),
    },
    vllmSectionsOf(result),
  );
  mkdirSync(join(path, '..'), { recursive: true });
  if (!append) {
    writeFileSync(path, `${resultJsonText(json, 2)}\n`);
    return;
  }
  // vLLM writes each result as one line, a newline between them.
  const empty = (statSync(path, { throwIfNoEntry: false })?.size ?? 0) === 0;
  appendFileSync(path, `${empty ? '' : '\n'}${resultJsonText(json)}`);
}

function timelineKeys(itlThresholdsMs: readonly [number, number] | undefined): Record<string, JsonValue> {
  return itlThresholdsMs === undefined ? {} : { [TIMELINE_THRESHOLDS_KEY]: [...itlThresholdsMs] };
}

/** vLLM's --plot-timeline file: the result's path with `.timeline.html` for its extension. */
export function timelinePathFor(resultPath: string): string {
  return `${resultPath.replace(/\.[^./\\]*$/, '')}.timeline.html`;
}

/** `--html FILE`: the run's report page, always from the detailed result (the charts need per-request data). */
export async function saveHtmlReport(
  path: string,
  run: RunDescription,
  result: BenchRunResult,
  itlThresholdsMs?: readonly [number, number],
): Promise<void> {
  const json = buildResultJson(
    run,
    result.metrics,
    result.extra,
    result.records,
    true,
    [],
    {
      ...costResultJson(result, run.price),
      ...featureKeys(result.parts, true),
      ...timelineKeys(itlThresholdsMs),
    },
    vllmSectionsOf(result),
  );
  // The page's renderers are loaded only for a page: a run without --html or --plot-timeline never needs them.
  const { writeHtmlReport } = await import('../report/html/write-html-report.js');
  await writeHtmlReport('run', { result: json }, path);
}

export interface BenchRunOutcome {
  readonly run: RunDescription;
  /** Where --save-result writes (the records file, unless given, is named after it). */
  readonly resultPath: string;
  readonly result: BenchRunResult;
  /** --threshold and the success floor, each held against the run's figures. */
  readonly checks: readonly ThresholdCheck[];
  /** What goes to stdout: the vLLM-format summary with ours (and the gateway's), the thresholds, and --smoke's
   *  verdict. */
  readonly report: string;
}

/** --save-result / --save-detailed, then --html FILE (undefined = no page). */
export async function saveBenchRun(
  outcome: BenchRunOutcome,
  settings: BenchSettings,
  htmlPath: string | undefined,
  say: Say,
): Promise<void> {
  if (settings.save.result) {
    saveResult(
      outcome.resultPath,
      outcome.run,
      outcome.result,
      settings.save.detailed,
      outcome.checks,
      settings.appendResult === true,
      settings.timeline?.itlThresholdsMs,
    );
    say(`result: ${outcome.resultPath}`);
  }
  if (htmlPath !== undefined) {
    await saveHtmlReport(htmlPath, outcome.run, outcome.result, settings.timeline?.itlThresholdsMs);
    say(`report: ${htmlPath}`);
  }
  if (settings.timeline?.plot === true) {
    const path = timelinePathFor(outcome.resultPath);
    await saveHtmlReport(path, outcome.run, outcome.result, settings.timeline.itlThresholdsMs);
    say(`timeline: ${path}`);
  }
}
