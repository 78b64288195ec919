// `tokenmeter bench`: vLLM's benchmark_serving.py command line, measured without coordinated omission, with
// per-chunk timing, errors that say why, and records streamed to disk as the run goes. This file turns the flags
// into settings and prints; the run is loadgen/bench (prepare-run.ts, bench-run.ts).

import type { BenchRunOutcome } from '../../loadgen/bench/bench-run.js';
import { BENCH_OPTIONS } from './bench-options.js';
import type { Command } from './command.js';
import {
  EXIT_BUDGET_STOPPED,
  EXIT_INTERRUPTED,
  EXIT_OK,
  EXIT_RUN_FAILED,
  EXIT_STOPPED_EARLY,
  EXIT_THRESHOLD_FAILED,
} from './exit-codes.js';

const say = (line: string): void => void process.stderr.write(`${line}\n`);

/** The most serious of what happened: stopped, then failed (nothing succeeded, or smoke failed), then stopped by a
 *  budget limit, then under the success floor (a run under it is not worth gating on), then a threshold crossed. */
function exitStatus({ result, checks }: BenchRunOutcome): number {
  if (result.interrupted) return EXIT_INTERRUPTED;
  if (result.smokeFailure !== undefined || result.metrics.completed === 0) return EXIT_RUN_FAILED;
  // A budget stop ranks above the success floor: with --on-limit cancel, the requests it cut are failures to
  // vLLM's figures, yet the user asked for them to be cut.
  if (result.budgetStop !== undefined) return EXIT_BUDGET_STOPPED;
  // Stopped because the answer was known: its own status, above the success floor it may well have crossed.
  if (result.earlyStop !== undefined) return EXIT_STOPPED_EARLY;
  if (checks.some((c) => c.successFloor && !c.passed)) return EXIT_RUN_FAILED;
  if (checks.some((c) => !c.passed)) return EXIT_THRESHOLD_FAILED;
  return EXIT_OK;
}

export const benchCommand: Command = {
  name: 'bench',
  summary: "Benchmark an OpenAI-compatible server with vLLM's flags and report (open or closed loop)",
  usage: [
    'bench --backend openai-chat --base-url URL --api-key-env VAR --model ID [--dataset-path FILE] [--num-prompts N] [--request-rate R]',
    'bench --config bench_config.json [--smoke] [flags overriding the file]',
  ],
  options: BENCH_OPTIONS,
  allowPositionals: true,
  details:
    'Flags, metrics and engines: docs/loadgen.md. Exit status: 0 ok, 1 failed (under 90% succeeded, or smoke failed), 2 usage, 3 stopped by --max-cost or --max-total-tokens, 4 stopped by --stop-on-saturation or --max-error-rate, 99 a --threshold failed, 130 interrupted.',
  async run(commandLine) {
    // The engines (undici, autocannon) and tokenizers load on use, so --help and other commands start fast.
    const { benchRun, saveBenchRun } = await import('../../loadgen/bench/bench-run.js');
    const { prepareRun } = await import('../../loadgen/bench/prepare-run.js');
    const { checkOutputFolders, benchOutputFolders } = await import('../../loadgen/bench/output-folders.js');
    const { settingsFromCommandLine } = await import('./bench-settings.js');
    const { untilStopped } = await import('./bench-signals.js');
    const { settings, flagNotes, options } = settingsFromCommandLine(commandLine, BENCH_OPTIONS);
    const { estimateBenchRun, calibratedFullRunEstimate } = await import(
      '../../loadgen/cost/run-estimate.js'
    );
    const { formatEstimate } = await import('../../loadgen/cost/estimate.js');
    if (settings.cost.estimateOnly) {
      const { estimate, dataset, tokenizer } = await estimateBenchRun(settings);
      say(`dataset: ${dataset.description}; tokenizer: ${tokenizer.name}`);
      process.stdout.write(`${formatEstimate(estimate)}\n`);
      return EXIT_OK;
    }
    const html = commandLine.options['html'];
    const htmlPath = typeof html === 'string' ? html : undefined;
    const workers = typeof options['workers'] === 'number' ? options['workers'] : 1;
    const { checkWorkers } = await import('./bench-workers.js');
    checkWorkers(workers, settings);
    checkOutputFolders(benchOutputFolders(settings, htmlPath));
    const prepared = await prepareRun(settings, say, { flagNotes });
    if (settings.cost.price !== undefined) {
      const { estimate } = await estimateBenchRun(settings, prepared);
      say(formatEstimate(estimate));
    }
    const outcome = await untilStopped(async (signal) => {
      if (workers === 1) return benchRun(settings, prepared, { signal, say, progressStream: process.stderr });
      const { workersOutcome } = await import('./bench-workers.js');
      say(`workers: ${workers} processes, each sending 1/${workers} of the schedule`);
      return workersOutcome(commandLine, options, workers, settings, prepared, signal, say);
    });
    process.stdout.write(outcome.report);
    if (settings.smoke && outcome.result.smokeFailure === undefined) {
      const calibrated = await calibratedFullRunEstimate(settings, {
        ...prepared,
        records: outcome.result.records,
      });
      if (calibrated !== undefined) process.stdout.write(`${formatEstimate(calibrated)}\n`);
    }
    await saveBenchRun(outcome, settings, htmlPath, say);
    return exitStatus(outcome);
  },
};
