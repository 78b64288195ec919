// `tokenmeter bench` from resolved settings to saved files, in the order a user meets it: --estimate alone (nothing
// sent), the folders it will write checked before anything is read, the run prepared (tokenizer, dataset, model),
// the estimate again from the prepared prompts when prices are known, the run (one process or --workers N), the
// report, the --smoke calibration of the full run's estimate, and the files saved. The CLI parses the flags into
// settings, hands over where lines go and how Ctrl-C stops the run, and picks the exit status from the outcome.

import { rmSync } from 'node:fs';
import { formatEstimate } from '../cost/estimate.js';
import {
  checkWorkers,
  type ParentFlags,
  type WorkerProcess,
  workersOutcome,
} from '../shards/worker-command-line.js';
import { formatThresholdChecks } from '../thresholds/format-checks.js';
import { type BenchRunResult, runChecks } from './aggregate.js';
import { formatSmokeOutcome, loadgenSummaryFor } from './bench-report.js';
import { benchOutputFolders, checkOutputFolders } from './output-folders.js';
import { type PreparedRun, prepareRun, type Say } from './prepare-run.js';
import type { ProgressStream } from './progress.js';
import { runBench } from './run-bench.js';
import { calibratedFullRunEstimate, estimateBenchRun } from './run-estimate.js';
import {
  type BenchRunOutcome,
  claimResultFile,
  describeRun,
  recordsPathFor,
  resultPath,
  saveBenchRun,
} from './save-result.js';
import type { BenchSettings } from './settings.js';

/** How the run is stopped early: `work` gets a signal aborted on the first Ctrl-C (the CLI's `untilStopped`). */
export type Stoppable = <T>(work: (signal: AbortSignal) => Promise<T>) => Promise<T>;

export interface BenchWorkflowInput {
  readonly settings: BenchSettings;
  /** Notes about the flags, said after the target's notes. */
  readonly flagNotes?: readonly string[];
  /** --html's path. */
  readonly htmlPath?: string;
  /** --workers: how many processes send the schedule, with what they inherit. */
  readonly workers?: {
    readonly count: number;
    readonly flags: ParentFlags;
    readonly process: WorkerProcess;
  };
  /** Lines for the user (stderr). */
  readonly say: Say;
  /** The report and the estimate (stdout). */
  readonly print: (text: string) => void;
  /** Where the live progress display goes (the CLI's stderr). */
  readonly progressStream: ProgressStream;
  /** Runs the sending part with a stop signal; without one nothing stops the run early. */
  readonly stoppable?: Stoppable;
  /** Where the proxy variables are read from (the process's environment unless given). */
  readonly env?: NodeJS.ProcessEnv;
}

/** `estimated`: --estimate printed its estimate and nothing was sent; `ran`: the run happened and was saved. */
export type BenchWorkflowOutcome =
  | { readonly kind: 'estimated' }
  | { readonly kind: 'ran'; readonly outcome: BenchRunOutcome };

const unstoppable: Stoppable = (work) => work(new AbortController().signal);

export async function benchWorkflow(input: BenchWorkflowInput): Promise<BenchWorkflowOutcome> {
  const { settings, say, print } = input;
  if (settings.cost.estimateOnly) {
    const { estimate, dataset, tokenizer } = await estimateBenchRun(settings);
    say(`dataset: ${dataset.description}; tokenizer: ${tokenizer.name}`);
    print(`${formatEstimate(estimate)}\n`);
    return { kind: 'estimated' };
  }
  const workers = input.workers;
  const count = workers?.count ?? 1;
  checkWorkers(count, settings);
  checkOutputFolders(benchOutputFolders(settings, input.htmlPath));
  const prepared = await prepareRun(settings, say, {
    flagNotes: input.flagNotes ?? [],
    ...(input.env === undefined ? {} : { env: input.env }),
  });
  if (settings.cost.price !== undefined) {
    const { estimate } = await estimateBenchRun(settings, prepared);
    say(formatEstimate(estimate));
  }
  const outcome = await (input.stoppable ?? unstoppable)(async (signal) => {
    if (workers === undefined || count === 1)
      return benchRun(settings, prepared, { signal, say, progressStream: input.progressStream });
    say(`workers: ${count} processes, each sending 1/${count} of the schedule`);
    return workersOutcome(workers.flags, workers.process, count, settings, prepared, signal, say);
  });
  print(outcome.report);
  if (settings.smoke && outcome.result.smokeFailure === undefined) {
    const calibrated = await calibratedFullRunEstimate(settings, {
      ...prepared,
      records: outcome.result.records,
    });
    if (calibrated !== undefined) print(`${formatEstimate(calibrated)}\n`);
  }
  await saveBenchRun(outcome, settings, input.htmlPath, say);
  return { kind: 'ran', outcome };
}

export interface BenchRunContext {
  readonly signal: AbortSignal;
  readonly say: Say;
  readonly progressStream: ProgressStream;
}

/** One process's run: its files named and claimed, the run, its checks and its report (nothing printed here; the
 *  caller prints the report before the files are saved, so a file that cannot be written never hides the figures
 *  of a run that happened). */
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
