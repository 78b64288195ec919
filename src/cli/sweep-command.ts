// `tokenmeter sweep`: the bench at several request rates (given, or found from a saturation probe), one table
// row per rate, and the knee said in a sentence. Every level's result JSON and records are kept, with a
// sweep-summary.json beside them.

import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { runBench } from '../../loadgen/bench/run-bench.js';
import { describeRun, saveResult } from '../../loadgen/bench/save-result.js';
import { writeHtmlReport } from '../../loadgen/report/html/write-html-report.js';
import { formatResultDate, resultFileName } from '../../loadgen/report/result-json.js';
import { sweepFromSummary } from '../../loadgen/report/sweep-data.js';
import { findKnee } from '../../loadgen/sweep/knee.js';
import { type SweepLevel, sweepLevel } from '../../loadgen/sweep/sweep-level.js';
import { DEFAULT_STEPS, parseRates, ratesFromSaturation } from '../../loadgen/sweep/sweep-rates.js';
import { sweepSummaryJson } from '../../loadgen/sweep/sweep-summary.js';
import { formatSweepTable } from '../../loadgen/sweep/sweep-table.js';
import { BENCH_OPTIONS, RATE_OPTION } from './bench-options.js';
import { type Prelude, prelude } from './bench-prelude.js';
import { EXIT_INTERRUPTED, stopOnSignals } from './bench-signals.js';
import type { Command } from './command.js';
import type { OptionSpec } from './options.js';
import { UsageError } from './usage-error.js';

const SWEEP_DEFAULT_PROMPTS = 100;
const say = (line: string): void => void process.stderr.write(`${line}\n`);

export const SWEEP_OPTIONS: readonly OptionSpec[] = [
  {
    name: 'rates',
    type: 'string',
    default: 'auto',
    valueName: 'LIST',
    help: 'Request rates to run, e.g. 1,2,4,8; auto = probe saturation, then step up to 125% of it',
  },
  {
    name: 'steps',
    type: 'integer',
    min: 2,
    max: 50,
    default: DEFAULT_STEPS,
    valueName: 'N',
    help: 'Levels of an automatic sweep',
  },
  ...BENCH_OPTIONS.filter((o) => o !== RATE_OPTION && o.name !== 'smoke').map((o) =>
    o.name === 'num-prompts' ? { ...o, default: SWEEP_DEFAULT_PROMPTS, help: 'Requests per level' } : o,
  ),
];

async function runLevel(p: Prelude, dir: string, rate: number, signal: AbortSignal): Promise<SweepLevel> {
  const settings = { ...p.settings, requestRate: rate };
  const run = describeRun(settings, p.modelId, p.tokenizer.name, new Date(), p.dataset.requests.length);
  const path = join(dir, resultFileName(run));
  const result = await runBench({
    settings,
    model: p.sentModel,
    recordsPath: path.replace(/\.json$/, '.records.jsonl'),
    signal,
    progressStream: process.stderr,
    tokenizer: p.tokenizer,
    dataset: p.dataset,
  });
  saveResult(path, run, result, settings.save.detailed);
  const level = sweepLevel(rate, result, basename(path));
  say(
    `rate ${Number.isFinite(rate) ? rate : 'inf'}: ${level.achievedRps.toFixed(2)} req/s achieved, ${(level.successRate * 100).toFixed(1)}% ok -> ${path}`,
  );
  return level;
}

export const sweepCommand: Command = {
  name: 'sweep',
  summary: 'Run the bench at several request rates and find where the server stops keeping up',
  usage: ['sweep --base-url URL [--rates 1,2,4,8 | --rates auto --steps 5] [bench flags]'],
  options: SWEEP_OPTIONS,
  allowPositionals: true,
  details:
    'Table columns and the knee rule: docs/loadgen.md. Results: one vLLM JSON + records per level, and sweep-summary.json.',
  async run(commandLine) {
    const ratesText = String(commandLine.options['rates'] ?? 'auto');
    let rates: number[] | undefined;
    try {
      rates = ratesText === 'auto' ? undefined : parseRates(ratesText);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const p = await prelude(commandLine, SWEEP_OPTIONS, say);
    const started = new Date();
    const dir =
      p.settings.save.dir === '.'
        ? join('.', `tokenmeter-sweep-${formatResultDate(started)}`)
        : p.settings.save.dir;
    say(`sweep results: ${dir}`);
    const controller = new AbortController();
    const release = stopOnSignals(controller, (text) => process.stderr.write(text));
    const levels: SweepLevel[] = [];
    try {
      if (rates === undefined) {
        const probe = await runLevel(p, dir, Number.POSITIVE_INFINITY, controller.signal);
        levels.push(probe);
        rates = ratesFromSaturation(probe.achievedRps, Number(commandLine.options['steps'] ?? DEFAULT_STEPS));
        say(`saturation probe: ${probe.achievedRps.toFixed(2)} req/s; levels: ${rates.join(', ')} req/s`);
      }
      for (const rate of rates) {
        if (controller.signal.aborted) break;
        levels.push(await runLevel(p, dir, rate, controller.signal));
      }
    } finally {
      release();
    }
    const knee = findKnee(levels);
    process.stdout.write(`${formatSweepTable(levels)}\n${knee.sentence}\n`);
    const summary = sweepSummaryJson(
      {
        date: formatResultDate(started),
        target: p.settings.target.url,
        modelId: p.modelId,
        engine: p.settings.engine,
        promptsPerLevel: p.dataset.requests.length,
        maxConcurrency: p.settings.maxConcurrency ?? null,
        goodput: p.settings.goodput ?? null,
        interrupted: controller.signal.aborted,
      },
      levels,
      knee,
    );
    const summaryPath = join(dir, 'sweep-summary.json');
    writeFileSync(summaryPath, `${JSON.stringify(summary, null, 2)}\n`);
    say(`summary: ${summaryPath}`);
    const html = commandLine.options['html'];
    if (typeof html === 'string') {
      // The report reads the summary exactly as `tokenmeter report sweep-summary.json` would.
      await writeHtmlReport(
        'sweep',
        sweepFromSummary(summaryPath, JSON.parse(JSON.stringify(summary))),
        html,
      );
      say(`report: ${html}`);
    }
    return controller.signal.aborted ? EXIT_INTERRUPTED : 0;
  },
};
