// `tokenmeter merge`'s run: the shards' union (merge-shards.ts) put through the report pipeline every run goes
// through (loadgen/metrics, loadgen/report), so a merged run reads, saves and draws like a one-process one: vLLM's
// summary and result JSON, our extras and verdicts, the HTML page; plus each shard's line (shard-table.ts). The
// run's settings (model, rate, backend...) are the shards' own, read from the first result file.

import type { JsonValue } from '../../src/shared/json-object.js';
import { isJsonObject } from '../../src/shared/json-object.js';
import { measuredRecords } from '../bench/interruption.js';
import {
  cancellationCounts,
  cancellationKeys,
  cancellationLine,
  type RunCancellations,
} from '../cancellation/cancelled-requests.js';
import { formatGpuSection } from '../gpu-metrics/gpu-section.js';
import type { GpuMetricsRun } from '../gpu-metrics/gpu-tracks.js';
import { type ExtraMetrics, extraMetrics } from '../metrics/extra-metrics.js';
import type { GoodputSlos, PercentileMetric } from '../metrics/metric-options.js';
import { type VllmMetrics, vllmMetrics } from '../metrics/vllm-metrics.js';
import type { RequestRecord } from '../record.js';
import { formatExtraSummary } from '../report/extra-summary.js';
import { numberField, rateField, stringField } from '../report/result-fields.js';
import { buildResultJson, type RunDescription } from '../report/result-json.js';
import { readTarget } from '../report/run-target.js';
import { formatVerdicts, type Verdict } from '../report/verdicts.js';
import { formatVllmSummary } from '../report/vllm-summary.js';
import type { ServerMetricsRun } from '../server-metrics/server-metrics-json.js';
import { serverMetricsKeys } from '../server-metrics/server-metrics-keys.js';
import { clientTtftOf, formatServerSection } from '../server-metrics/server-section.js';
import { verdictsWithServer } from '../server-metrics/server-verdict.js';
import { mergeShards } from './merge-shards.js';
import type { ShardRun } from './shard-results.js';
import { mergedGpuMetrics, mergedServerMetrics } from './shard-server-metrics.js';
import { formatShardTable, type ShardFigures, shardFigures, shardsJson } from './shard-table.js';

export interface MergeSettings {
  readonly percentileMetrics: readonly PercentileMetric[];
  readonly metricPercentiles: readonly number[];
  readonly goodput?: GoodputSlos;
  /** --allow-partial: merge despite missing shards, torn lines, foreign or repeated records (each said). */
  readonly allowPartial?: boolean;
}

export interface MergedRun {
  readonly run: RunDescription;
  readonly records: RequestRecord[];
  readonly durationMs: number;
  readonly metrics: VllmMetrics;
  readonly extra: ExtraMetrics;
  readonly verdicts: Verdict[];
  readonly shards: ShardFigures[];
  readonly notes: string[];
  /** The shards' server metrics joined by time (each read the same server on a shared t = 0). */
  readonly serverMetrics?: ServerMetricsRun;
  /** The shards' GPU figures, per GPU: one several shards read counted once, different GPUs summed. */
  readonly gpuMetrics?: GpuMetricsRun;
  /** --request-cancellation-rate, as the shards ran it (one plan, split among them), and its counts merged. */
  readonly cancellation?: RunCancellations;
}

/** The shards' planned cancellations: their settings (the same in every shard) and the union's counts. */
function mergedCancellation(
  runs: readonly ShardRun[],
  records: readonly RequestRecord[],
): RunCancellations | undefined {
  const tokenmeter = runs[0]?.result.json['tokenmeter'];
  const asked = isJsonObject(tokenmeter) ? tokenmeter['cancellation'] : undefined;
  if (!isJsonObject(asked)) return undefined;
  const ratePercent = numberField(asked, 'rate_percent');
  const delayS = numberField(asked, 'delay_s');
  if (ratePercent === null || delayS === null) return undefined;
  return { settings: { ratePercent, delayMs: delayS * 1000 }, counts: cancellationCounts(records) };
}

function describe(runs: readonly ShardRun[], settings: MergeSettings, date: Date): RunDescription {
  const json = runs[0]?.result.json ?? {};
  const target = readTarget(json);
  const hosts = [...new Set(runs.map((run) => run.host ?? '-'))].join(', ');
  const label = stringField(json, 'label');
  const maxConcurrency = numberField(json, 'max_concurrency');
  return {
    date,
    backend: stringField(json, 'backend') ?? 'unknown',
    ...(label === null ? {} : { label }),
    modelId: stringField(json, 'model_id') ?? 'unknown',
    tokenizerId: stringField(json, 'tokenizer_id') ?? 'unknown',
    numPrompts: numberField(json, 'num_prompts') ?? 0,
    requestRate: rateField(json, 'request_rate') ?? Number.POSITIVE_INFINITY,
    burstiness: rateField(json, 'burstiness') ?? 1,
    ...(maxConcurrency === null ? {} : { maxConcurrency }),
    percentileMetrics: settings.percentileMetrics,
    ...(target?.baseUrl == null || target.tokenmeterVersion === null
      ? {}
      : { target: { baseUrl: target.baseUrl, tokenmeterVersion: target.tokenmeterVersion, host: hosts } }),
  };
}

export function mergedRun(runs: readonly ShardRun[], settings: MergeSettings, date: Date): MergedRun {
  const { records, durationMs, notes } = mergeShards(runs, { allowPartial: settings.allowPartial ?? false });
  // The figures leave out the requests cancelled as --request-cancellation-rate planned, as each shard's did.
  const measured = measuredRecords(records, undefined);
  const extra = extraMetrics(measured, settings.metricPercentiles);
  const serverMetrics = mergedServerMetrics(runs);
  const gpuMetrics = mergedGpuMetrics(runs);
  const found = verdictsWithServer(measured, extra, serverMetrics, clientTtftOf(measured));
  const cancellation = mergedCancellation(runs, records);
  return {
    run: describe(runs, settings, date),
    records,
    durationMs,
    metrics: vllmMetrics(measured, {
      durationMs,
      metricPercentiles: settings.metricPercentiles,
      ...(settings.goodput === undefined ? {} : { goodput: settings.goodput }),
    }),
    extra,
    verdicts: found,
    shards: runs.map(shardFigures),
    notes,
    ...(serverMetrics === undefined ? {} : { serverMetrics }),
    ...(gpuMetrics === undefined ? {} : { gpuMetrics }),
    ...(cancellation === undefined ? {} : { cancellation }),
  };
}

const lines = (list: readonly string[]): string => (list.length === 0 ? '' : `${list.join('\n')}\n`);

export function formatMergedReport(merged: MergedRun): string {
  const { run } = merged;
  return [
    formatVllmSummary(merged.metrics, {
      requestRate: run.requestRate,
      percentileMetrics: run.percentileMetrics,
      ...(run.maxConcurrency === undefined ? {} : { maxConcurrency: run.maxConcurrency }),
    }),
    cancellationLine(merged.cancellation),
    formatExtraSummary(merged.extra),
    formatShardTable(merged.shards, merged.notes),
    lines(formatServerSection(merged.serverMetrics, clientTtftOf(merged.records))),
    lines(formatGpuSection(merged.gpuMetrics, merged.metrics.totalOutput)),
    formatVerdicts(merged.verdicts),
  ].join('');
}

/** vLLM's result JSON of the merged run, with each shard's line under `tokenmeter.shards`. */
export function mergedResultJson(
  merged: MergedRun,
  detailed: boolean,
  recordsFile?: string,
): Record<string, JsonValue> {
  const run = recordsFile === undefined ? merged.run : { ...merged.run, recordsFile };
  const json = buildResultJson(
    run,
    merged.metrics,
    merged.extra,
    merged.records,
    detailed,
    [],
    { ...serverMetricsKeys(merged), ...cancellationKeys(merged.cancellation) },
    merged.gpuMetrics === undefined ? {} : { gpu: merged.gpuMetrics },
  );
  const tokenmeter = json['tokenmeter'];
  if (isJsonObject(tokenmeter)) tokenmeter['shards'] = shardsJson(merged.shards);
  return json;
}
