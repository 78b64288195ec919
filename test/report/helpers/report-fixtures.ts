// Test helper: one report of each kind, written to a folder, with hostile strings from "the data" (a model
// name and an error body that would inject markup if not escaped) to prove they are shown, not run.

import { join } from 'node:path';
import { loadRun } from '../../../loadgen/compare/run-records.js';
import { writeHtmlReport } from '../../../loadgen/report/html/write-html-report.js';
import type { LoadedResult } from '../../../loadgen/report/read-result-file.js';
import { type SweepReportData, sweepLevelFrom } from '../../../loadgen/report/sweep-data.js';
import {
  serverMetricsJson,
  serverMetricsRun,
} from '../../../loadgen/server-metrics/server-metrics-feature.js';
import type { ServerSeries } from '../../../loadgen/server-metrics/server-series.js';
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
  const json = resultOf(records, { label: 'local-vllm' });
  // The server's /metrics through the run, as bench saves it: a queue that builds as KV usage fills.
  const tokenmeter = json['tokenmeter'] as Record<string, unknown>;
  tokenmeter['server_metrics'] = JSON.parse(
    JSON.stringify(serverMetricsJson(serverMetricsRun(syntheticServerSeries(60), '', ''))),
  );
  return { path: 'local-vllm.json', json };
}

/** One sample a second from a baseline before t = 0 to `seconds`: running up to a cap of 8, waiting from 30 s. */
function syntheticServerSeries(seconds: number): ServerSeries {
  const tS = Array.from({ length: seconds + 2 }, (_, i) => i - 0.5);
  const running = tS.map((t) => Math.max(0, Math.min(8, Math.round(t / 3))));
  const waiting = tS.map((t) => Math.max(0, Math.round((t - 30) / 2)));
  return {
    url: 'http://127.0.0.1:8000/metrics',
    family: 'vllm',
    names: { kvUsage: 'vllm:kv_cache_usage_perc' },
    intervalMs: 1000,
    tS,
    values: {
      running,
      waiting,
      kvUsage: tS.map((t) => Math.max(0, Math.min(0.99, t / 40))),
      preemptions: tS.map((t) => Math.max(0, Math.floor((t - 40) / 4))),
    },
    histograms: {},
    failed: 0,
    skipped: 0,
    readCpuMs: tS.map(() => 0.2),
    pageBytes: 9000,
  };
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
