// What `tokenmeter sweep` runs: the bench at each rate (given, or found from a saturation probe), one table row
// per rate, the knee in a sentence, every level's result JSON and records, and sweep-summary.json beside them.
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { settingsFromCommandLine } from '../../src/cli/bench-settings.js';
import { EXIT_INTERRUPTED, stopOnSignals } from '../../src/cli/bench-signals.js';
import type { OptionSpec, ParsedCommandLine } from '../../src/cli/options.js';
import { UsageError } from '../../src/shared/usage-error.js';
import { type PreparedRun, prepareRun } from '../bench/prepare-run.js';
import { runBench } from '../bench/run-bench.js';
import { describeRun, saveResult } from '../bench/save-result.js';
import type { BenchSettings } from '../bench/settings.js';
import { writeHtmlReport } from '../report/html/write-html-report.js';
import { formatResultDate, resultFileName } from '../report/result-json.js';
import { sweepFromSummary } from '../report/sweep-data.js';
import { findKnee } from './knee.js';
import { type SweepLevel, sweepLevel } from './sweep-level.js';
import { DEFAULT_STEPS, parseRates, ratesFromSaturation } from './sweep-rates.js';
import { sweepSummaryJson } from './sweep-summary.js';
import { formatSweepTable } from './sweep-table.js';

const say = (line: string): void => void process.stderr.write(`${line}\n`);

type Prelude = PreparedRun & { readonly settings: BenchSettings };

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

export async function runSweep(
  commandLine: ParsedCommandLine,
  options: readonly OptionSpec[],
): Promise<number> {
  const ratesText = String(commandLine.options['rates'] ?? 'auto');
  let rates: number[] | undefined;
  try {
    rates = ratesText === 'auto' ? undefined : parseRates(ratesText);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { settings, flagNotes } = settingsFromCommandLine(commandLine, options);
  const p: Prelude = { settings, ...(await prepareRun(settings, say, { flagNotes })) };
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
    await writeHtmlReport('sweep', sweepFromSummary(summaryPath, JSON.parse(JSON.stringify(summary))), html);
    say(`report: ${html}`);
  }
  return controller.signal.aborted ? EXIT_INTERRUPTED : 0;
}
