// `tokenmeter bench`: vLLM's benchmark_serving.py command line, measured without coordinated omission, with
// per-chunk timing, errors that say why, and records streamed to disk as the run goes. This file turns the flags
// into settings, hands them to the workflow (loadgen/bench/bench-workflow.ts) and picks the exit status.

import { stopReasonOf } from '../../loadgen/bench/features.js';
import type { BenchRunOutcome } from '../../loadgen/bench/save-result.js';
import { endDespiteParkedWrite } from '../shared/records-writer.js';
import { BENCH_OPTIONS } from './bench-options.js';
import {
  defineCommand,
  EXIT_BUDGET_STOPPED,
  EXIT_INTERRUPTED,
  EXIT_OK,
  EXIT_RUN_FAILED,
  EXIT_STOPPED_EARLY,
  EXIT_THRESHOLD_FAILED,
} from './command.js';

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
  if (stopReasonOf(result.parts) !== undefined) return EXIT_STOPPED_EARLY;
  if (checks.some((c) => c.successFloor && !c.passed)) return EXIT_RUN_FAILED;
  if (checks.some((c) => !c.passed)) return EXIT_THRESHOLD_FAILED;
  return EXIT_OK;
}

export const benchCommand = defineCommand({
  usage: [
    'bench --backend openai-chat --base-url URL --api-key-env VAR --model ID [--dataset-path FILE] [--num-prompts N] [--request-rate R]',
    'bench --config bench_config.json [--smoke] [flags overriding the file]',
  ],
  options: BENCH_OPTIONS,
  allowPositionals: true,
  details:
    'Tasks: docs/loadgen.md; every flag, definition and exit status: docs/loadgen-reference.md. Exit status: 0 ok, 1 failed (under 90% succeeded, or smoke failed), 2 usage, 3 stopped by --max-cost or --max-total-tokens, 4 stopped by --stop-on-saturation or --max-error-rate, 99 a --threshold failed, 130 interrupted.',
  async run(commandLine) {
    // The engines (undici, autocannon) and tokenizers load on use, so --help and other commands start fast.
    const { trimV8ForLoadGeneration } = await import('../../loadgen/engine/v8-footprint.js');
    trimV8ForLoadGeneration();
    const { benchWorkflow } = await import('../../loadgen/bench/bench-workflow.js');
    const { settingsFromCommandLine } = await import('./bench-settings.js');
    const { untilStopped } = await import('./signals.js');
    const { settings, flagNotes, options } = settingsFromCommandLine(commandLine, BENCH_OPTIONS);
    const html = commandLine.options['html'];
    const workers = options['workers'];
    const ran = await benchWorkflow({
      settings,
      flagNotes,
      ...(typeof html === 'string' ? { htmlPath: html } : {}),
      ...(typeof workers === 'number'
        ? {
            workers: {
              count: workers,
              flags: { values: options, positionals: commandLine.positionals },
              process: { cliPath: process.argv[1] ?? '', env: process.env },
            },
          }
        : {}),
      say,
      print: (text) => void process.stdout.write(text),
      progressStream: process.stderr,
      stoppable: untilStopped,
    });
    if (ran.kind === 'estimated') return EXIT_OK;
    const status = exitStatus(ran.outcome);
    const { recordsCounts, recordsPath } = ran.outcome.result;
    if (recordsCounts?.stuck === true) {
      // endDespiteParkedWrite (records-writer.ts) is imported up front: loading a module now would read a file
      // through the parked threadpool.
      say(
        `records file ${recordsPath ?? ''}: a file operation on it never returned (a hung mount?); ${recordsCounts.lost} records lost; ending without waiting for it (by SIGTERM, status 143, instead of ${status})`,
      );
      endDespiteParkedWrite(() => {});
    }
    return status;
  },
});
