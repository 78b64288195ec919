// `tokenmeter bench`: vLLM's benchmark_serving.py command line, measured without coordinated omission, with
// per-chunk timing, errors that say why, and records streamed to disk as the run goes.

import { BENCH_OPTIONS } from './bench-options.js';
import type { Command } from './command.js';

const say = (line: string): void => void process.stderr.write(`${line}\n`);

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
    'Flags, metrics and engines: docs/loadgen.md. Exit status: 0 ok, 1 failed (or smoke failed), 2 usage, 130 interrupted.',
  async run(commandLine) {
    // The engines (undici, autocannon) and tokenizers load on use, so --help and other commands start fast.
    const { loadgenSummaryFor } = await import('../../loadgen/bench/bench-output.js');
    const { formatSmokeOutcome } = await import('../../loadgen/bench/bench-report.js');
    const { runBench } = await import('../../loadgen/bench/run-bench.js');
    const { describeRun, resultPath, saveHtmlReport, saveResult } = await import(
      '../../loadgen/bench/save-result.js'
    );
    const { prelude } = await import('../../loadgen/bench/prepare-run.js');
    const { EXIT_INTERRUPTED, stopOnSignals } = await import('./bench-signals.js');
    const { settings, modelId, sentModel, tokenizer, dataset } = await prelude(
      commandLine,
      BENCH_OPTIONS,
      say,
    );
    const date = new Date();
    const run = describeRun(settings, modelId, tokenizer.name, date, dataset.requests.length);
    const path = resultPath(settings, run);
    const recordsPath =
      settings.recordsFile === null
        ? null
        : (settings.recordsFile ?? `${path.replace(/\.json$/, '')}.records.jsonl`);
    if (recordsPath !== null) say(`records: ${recordsPath}`);
    const controller = new AbortController();
    const release = stopOnSignals(controller, (text) => process.stderr.write(text));
    let result: Awaited<ReturnType<typeof runBench>>;
    try {
      result = await runBench({
        settings,
        model: sentModel,
        recordsPath,
        signal: controller.signal,
        progressStream: process.stderr,
        tokenizer,
        dataset,
      });
    } finally {
      release();
    }
    process.stdout.write(loadgenSummaryFor(result, settings));
    if (settings.smoke) process.stdout.write(formatSmokeOutcome(result));
    if (settings.save.result) {
      saveResult(path, run, result, settings.save.detailed);
      say(`result: ${path}`);
    }
    const html = commandLine.options['html'];
    if (typeof html === 'string') {
      await saveHtmlReport(html, run, result);
      say(`report: ${html}`);
    }
    if (result.interrupted) return EXIT_INTERRUPTED;
    if (result.smokeFailure !== undefined || result.metrics.completed === 0) return 1;
    return 0;
  },
};
