// A sweep: the bench at each rate (given, or found from a saturation probe), every level's result JSON and records,
// the knee, then sweep-summary.json (and its HTML page) beside them. Nothing is printed here: progress lines go to
// the caller's `say`, the table comes back as text. Split in two so that the caller prints the table before the
// summary is written, as for a single run.
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { PreparedRun, Say } from '../bench/prepare-run.js';
import type { ProgressStream } from '../bench/progress.js';
import { runBench } from '../bench/run-bench.js';
import { describeRun, saveResult } from '../bench/save-result.js';
import type { BenchSettings } from '../bench/settings.js';
import { writeHtmlReport } from '../report/html/write-html-report.js';
import { formatResultDate, resultFileName } from '../report/result-json.js';
import { sweepFromSummary } from '../report/sweep-data.js';
import { findKnee, type Knee } from './knee.js';
import { type SweepLevel, sweepLevel } from './sweep-level.js';
import { ratesFromSaturation } from './sweep-rates.js';
import { sweepSummaryJson } from './sweep-summary.js';
import { formatSweepTable } from './sweep-table.js';

export interface SweepInput {
  readonly settings: BenchSettings;
  /** The rates to run, or undefined: probe saturation first, then `steps` levels up to 125% of it. */
  readonly rates: readonly number[] | undefined;
  readonly steps: number;
  readonly prepared: PreparedRun;
  /** Aborted (Ctrl-C): the level in flight stops, no further level starts, and what ran is summarized. */
  readonly signal: AbortSignal;
  readonly say: Say;
  readonly progressStream: ProgressStream;
}

export interface SweepOutcome {
  /** Where every level's files and the summary go. */
  readonly dir: string;
  readonly started: Date;
  readonly levels: readonly SweepLevel[];
  readonly knee: Knee;
  readonly interrupted: boolean;
  /** What goes to stdout: one table row per level and the knee in a sentence. */
  readonly report: string;
}

async function runLevel(input: SweepInput, dir: string, rate: number): Promise<SweepLevel> {
  const p = input.prepared;
  const settings = { ...input.settings, requestRate: rate };
  const run = describeRun(settings, p.modelId, p.tokenizer.name, new Date(), p.dataset.requests.length);
  const path = join(dir, resultFileName(run));
  const result = await runBench({
    settings,
    model: p.sentModel,
    recordsPath: path.replace(/\.json$/, '.records.jsonl'),
    signal: input.signal,
    progressStream: input.progressStream,
    tokenizer: p.tokenizer,
    dataset: p.dataset,
  });
  saveResult(path, run, result, settings.save.detailed);
  const level = sweepLevel(rate, result, basename(path));
  input.say(
    `rate ${Number.isFinite(rate) ? rate : 'inf'}: ${level.achievedRps.toFixed(2)} req/s achieved, ${(level.successRate * 100).toFixed(1)}% ok -> ${path}`,
  );
  return level;
}

export async function runSweep(input: SweepInput): Promise<SweepOutcome> {
  const { settings, signal, say } = input;
  const started = new Date();
  const dir =
    settings.save.dir === '.'
      ? join('.', `tokenmeter-sweep-${formatResultDate(started)}`)
      : settings.save.dir;
  say(`sweep results: ${dir}`);
  const levels: SweepLevel[] = [];
  let rates = input.rates;
  if (rates === undefined) {
    const probe = await runLevel(input, dir, Number.POSITIVE_INFINITY);
    levels.push(probe);
    rates = ratesFromSaturation(probe.achievedRps, input.steps);
    say(`saturation probe: ${probe.achievedRps.toFixed(2)} req/s; levels: ${rates.join(', ')} req/s`);
  }
  for (const rate of rates) {
    if (signal.aborted) break;
    levels.push(await runLevel(input, dir, rate));
  }
  const knee = findKnee(levels);
  return {
    dir,
    started,
    levels,
    knee,
    interrupted: signal.aborted,
    report: `${formatSweepTable(levels)}\n${knee.sentence}\n`,
  };
}

/** sweep-summary.json in the sweep's folder, then --html FILE (undefined = no page). */
export async function saveSweep(
  outcome: SweepOutcome,
  settings: BenchSettings,
  prepared: PreparedRun,
  htmlPath: string | undefined,
  say: Say,
): Promise<void> {
  const summary = sweepSummaryJson(
    {
      date: formatResultDate(outcome.started),
      target: settings.target.url,
      modelId: prepared.modelId,
      engine: settings.engine,
      promptsPerLevel: prepared.dataset.requests.length,
      maxConcurrency: settings.maxConcurrency ?? null,
      goodput: settings.goodput ?? null,
      interrupted: outcome.interrupted,
    },
    outcome.levels,
    outcome.knee,
  );
  const summaryPath = join(outcome.dir, 'sweep-summary.json');
  writeFileSync(summaryPath, `${JSON.stringify(summary, null, 2)}\n`);
  say(`summary: ${summaryPath}`);
  if (htmlPath !== undefined) {
    // The report reads the summary exactly as `tokenmeter report sweep-summary.json` would.
    await writeHtmlReport(
      'sweep',
      sweepFromSummary(summaryPath, JSON.parse(JSON.stringify(summary))),
      htmlPath,
    );
    say(`report: ${htmlPath}`);
  }
}
