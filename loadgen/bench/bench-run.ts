// The `bench` command's run around runBench: where its result and records files go, the run itself, then the
// result JSON and the HTML page. Split in two so that the caller prints the report between the run and the saving
// (a file that cannot be written never hides the figures of a run that happened). Nothing is printed here.

import { rmSync } from 'node:fs';
import type { RunDescription } from '../report/result-json.js';
import type { ThresholdCheck } from '../thresholds/check-thresholds.js';
import { formatThresholdChecks } from '../thresholds/format-checks.js';
import { loadgenSummaryFor } from './bench-output.js';
import { formatSmokeOutcome } from './bench-report.js';
import type { PreparedRun, Say } from './prepare-run.js';
import type { ProgressStream } from './progress.js';
import { type BenchRunResult, runBench } from './run-bench.js';
import { runChecks } from './run-checks.js';
import {
  claimResultFile,
  describeRun,
  recordsPathFor,
  resultPath,
  saveHtmlReport,
  saveResult,
  timelinePathFor,
} from './save-result.js';
import type { BenchSettings } from './settings.js';

export interface BenchRunContext {
  readonly signal: AbortSignal;
  readonly say: Say;
  readonly progressStream: ProgressStream;
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

export async function benchRun(
  settings: BenchSettings,
  prepared: PreparedRun,
  context: BenchRunContext,
): Promise<BenchRunOutcome> {
  const run = describeRun(
    settings,
    prepared.modelId,
    prepared.tokenizer.name,
    new Date(),
    prepared.dataset.requests.length,
  );
  const path = resultPath(settings, run);
  const recordsPath = recordsPathFor(settings, path);
  // --append-result adds to a file on purpose: only a file this run replaces must be new.
  if (settings.save.result && settings.appendResult !== true) claimResultFile(path);
  if (recordsPath !== null) context.say(`records: ${recordsPath}`);
  let result: BenchRunResult;
  try {
    result = await runBench({
      settings,
      model: prepared.sentModel,
      recordsPath,
      signal: context.signal,
      progressStream: context.progressStream,
      tokenizer: prepared.tokenizer,
      dataset: prepared.dataset,
      say: context.say,
    });
  } catch (error) {
    // A run that never ended leaves no empty result file behind to refuse the next one.
    if (settings.save.result && settings.appendResult !== true) rmSync(path, { force: true });
    throw error;
  }
  const checks = runChecks(result, settings, run);
  const report =
    loadgenSummaryFor(result, settings) +
    formatThresholdChecks(checks) +
    (settings.smoke ? formatSmokeOutcome(result) : '');
  return { run, resultPath: path, result, checks, report };
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
