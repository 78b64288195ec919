// `tokenmeter merge`'s run: the shards' union (merge-shards.ts) put through the report pipeline every run goes
// through (loadgen/metrics, loadgen/report), so a merged run reads, saves and draws like a one-process one: vLLM's
// summary and result JSON, our extras and verdicts, the HTML page; plus each shard's line (shard-table.ts). The
// run's settings (model, rate, backend...) are the shards' own, read from the first result file.

import { isJsonObject, type JsonValue } from '../../src/shared/json-object.js';
import { featureParts, mergedSeen, vllmSectionsOf } from '../bench/aggregate.js';
import { featureKeys, featureLines, featureText } from '../bench/features.js';
import type { FeatureParts } from '../feature.js';
import { type ExtraMetrics, extraMetrics } from '../metrics/extra-metrics.js';
import type { GoodputSlos, PercentileMetric } from '../metrics/metric-options.js';
import { type VllmMetrics, vllmMetrics } from '../metrics/vllm-metrics.js';
import type { RequestRecord } from '../record.js';
import { formatExtraSummary } from '../report/extra-summary.js';
import { measuredRecords } from '../report/interruption.js';
import { numberField, rateField, stringField } from '../report/result-fields.js';
import { buildResultJson, type RunDescription } from '../report/result-json.js';
import { readTarget } from '../report/run-target.js';
import { formatVerdicts, type Verdict } from '../report/verdicts.js';
import { formatVllmSummary } from '../report/vllm-summary.js';
import { runVerdicts } from '../server-metrics/server-verdict.js';
import { mergeShards } from './merge-shards.js';
import type { ShardRun } from './shard-results.js';
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
  /** Each feature's part (loadgen/features.ts): the shards' parts merged, then aggregated on the union. */
  readonly parts: FeatureParts;
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
  // The figures leave out the requests cancelled as planned, as each shard's did.
  const measured = measuredRecords(records, undefined);
  const extra = extraMetrics(measured, settings.metricPercentiles);
  const seen = mergedSeen(runs.map((run) => run.result.json));
  const parts = featureParts(undefined, records, measured, seen);
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
    verdicts: runVerdicts(measured, extra, parts),
    shards: runs.map(shardFigures),
    notes,
    parts,
  };
}

const lines = (list: readonly string[]): string => (list.length === 0 ? '' : `${list.join('\n')}\n`);

export function formatMergedReport(merged: MergedRun): string {
  const { run } = merged;
  const context = {
    records: merged.records,
    planned: merged.records.length,
    outputTokens: merged.metrics.totalOutput,
  };
  return [
    formatVllmSummary(merged.metrics, {
      requestRate: run.requestRate,
      percentileMetrics: run.percentileMetrics,
      ...(run.maxConcurrency === undefined ? {} : { maxConcurrency: run.maxConcurrency }),
    }),
    featureText(merged.parts, 'after-summary', context),
    formatExtraSummary(merged.extra),
    formatShardTable(merged.shards, merged.notes),
    lines(featureLines(merged.parts, 'section', context)),
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
    featureKeys(merged.parts, detailed),
    vllmSectionsOf(merged),
  );
  const tokenmeter = json['tokenmeter'];
  if (isJsonObject(tokenmeter)) tokenmeter['shards'] = shardsJson(merged.shards);
  return json;
}
