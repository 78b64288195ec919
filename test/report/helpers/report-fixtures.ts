// Test helper: one report of each kind, written to a folder, with hostile strings from "the data" (a model
// name and an error body that would inject markup if not escaped) to prove they are shown, not run.

import { join } from 'node:path';
import { loadRun } from '../../../loadgen/compare/run-records.js';
import { writeHtmlReport } from '../../../loadgen/report/html/write-html-report.js';
import type { LoadedResult } from '../../../loadgen/report/read-result-file.js';
import { type SweepReportData, sweepLevelFrom } from '../../../loadgen/report/sweep-data.js';
import { resultOf, syntheticRecords } from './synthetic-run.js';

export const HOSTILE_MODEL = 'evil"><img src=x onerror="document.title=1"><script>document.title=2</script>';
export const HOSTILE_BODY = '{"error": "</style><script>alert(1)</script> & more"}';

export function localRun(): LoadedResult {
  const records = syntheticRecords({
    count: 240,
    seed: 7,
    ratePerS: 4,
    ttftMs: 120,
    gapMs: 15,
    failEvery: 60,
    failStatus: 404,
    failBody: HOSTILE_BODY,
  });
  return { path: 'local-vllm.json', json: resultOf(records, { label: 'local-vllm' }) };
}

export function hostedRun(): LoadedResult {
  const records = syntheticRecords({ count: 240, seed: 8, ratePerS: 4, ttftMs: 220, gapMs: 11 });
  return {
    path: 'hosted.json',
    json: resultOf(records, { label: 'hosted gateway', modelId: HOSTILE_MODEL }),
  };
}

/** Five levels: throughput follows the offered rate up to 8 req/s, then flattens as TTFT climbs. */
export function sweepData(): SweepReportData {
  const levels = [1, 2, 4, 8, 16].map((rate, i) => {
    const saturated = Math.min(rate, 9);
    const records = syntheticRecords({
      count: 40,
      seed: 20 + i,
      ratePerS: saturated,
      ttftMs: rate > 8 ? 900 : 100 + rate * 10,
      gapMs: 12,
      ...(rate > 8 ? { failEvery: 8 } : {}),
    });
    const level = sweepLevelFrom(resultOf(records, { requestRate: rate }));
    if (level === null) throw new Error('fixture level without a rate');
    return level;
  });
  return {
    levels,
    knee: {
      offeredRate: 8,
      firstBadRate: null,
      sentence: 'Knee at 8 req/s: above it, achieved throughput stops following the offered rate.',
    },
    settings: { model: 'Qwen/Qwen2.5-7B-Instruct', backend: 'openai-chat' },
    source: 'sweep-summary.json',
  };
}

export type ReportKind = 'run' | 'sweep' | 'compare';

/** Writes the three reports into `folder`; returns their paths by kind. */
export async function writeAllReports(folder: string): Promise<Record<ReportKind, string>> {
  const paths = {
    run: join(folder, 'run-report.html'),
    sweep: join(folder, 'sweep-report.html'),
    compare: join(folder, 'compare-report.html'),
  };
  const local = localRun();
  await writeHtmlReport('run', { result: local.json, source: local.path }, paths.run);
  await writeHtmlReport('sweep', sweepData(), paths.sweep);
  const runs = await Promise.all([local, hostedRun()].map(loadRun));
  await writeHtmlReport('compare', { runs }, paths.compare);
  return paths;
}
