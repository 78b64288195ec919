// A bench run's figures from what the run produced: the middle of the backbone (run -> aggregate -> present). The
// run (run-bench.ts) hands over its records, its counts and what each feature saw; this computes, without I/O
// and without calling back into the run, vLLM's metrics, ours, each feature's part (features.ts) and the verdicts.
// The same functions turn shards' files into one run (loadgen/shards/): the shards' parts are merged first, then
// aggregated on the union's records as a one-process run's are. The presenters (bench-report.ts, save-result.ts)
// read only the result made here.

import type { JsonValueObject } from '../../src/shared/json-object.js';
import type { HintContext } from '../../src/shared/upstream-hints.js';
import type { SpanExportCounts } from '../../src/tracing/span-export.js';
import type { BudgetStop } from '../cost/budget.js';
import type { AnyRunFeature, FeatureParts } from '../feature.js';
import type { GatewaySide } from '../gateway-timings.js';
import { type ExtraMetrics, extraMetrics } from '../metrics/extra-metrics.js';
import { LATENCY_METRICS } from '../metrics/metric-options.js';
import { type VllmMetrics, vllmMetrics } from '../metrics/vllm-metrics.js';
import type { RequestRecord } from '../record.js';
import { type Interruption, measuredRecords } from '../report/interruption.js';
import { buildResultJson, type RunDescription } from '../report/result-json.js';
import type { Verdict } from '../report/verdicts.js';
import type { ProbeStats, VllmRunSections } from '../report/vllm-summary.js';
import { runVerdicts } from '../server-metrics/server-verdict.js';
import { checkThresholds, percentilesRead, type ThresholdCheck } from '../thresholds/check-thresholds.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';
import { BENCH_FEATURES } from './features.js';
import type { LoadedDataset } from './load-dataset.js';
import type { RecordsFileCounts } from './records-file.js';
import type { BenchSettings } from './settings.js';

/** What a run produced: its records and counts, and what each feature saw (no figures yet). */
export interface RunOutput {
  readonly records: RequestRecord[];
  /** performance.now() of the run's t = 0: records' offsets are relative to it. */
  readonly startedAtMs: number;
  readonly durationMs: number;
  readonly tokenizer: Tokenizer;
  readonly dataset: LoadedDataset;
  readonly planned: number;
  /** Stopped by the caller's signal (Ctrl-C), not by --smoke. */
  readonly interrupted: boolean;
  /** When it was stopped so and what that cancelled (left out of the figures). */
  readonly interruption?: Interruption;
  /** --max-cost / --max-total-tokens: the limit that stopped the run, when one did. */
  readonly budgetStop?: BudgetStop;
  /** --smoke: the first failing request, with as much of its answer as was kept. */
  readonly smokeFailure?: RequestRecord;
  readonly recordsPath: string | null;
  /** What became of the records streamed to `recordsPath`: written, or lost and why. */
  readonly recordsCounts?: RecordsFileCounts;
  /** With span export on: what became of the run's client spans, once the last were sent. */
  readonly spans?: SpanExportCounts;
  /** --probe-request-rate: the probes' figures, when one succeeded. */
  readonly probes?: ProbeStats;
  /** What each feature saw through the run (or, for a merged run, the shards' parts merged). */
  readonly seen: FeatureParts;
}

export interface BenchRunResult extends Omit<RunOutput, 'seen'> {
  readonly metrics: VllmMetrics;
  readonly extra: ExtraMetrics;
  readonly verdicts: Verdict[];
  /** Each feature's part of the figures (loadgen/features.ts; read one with partOf). */
  readonly parts: FeatureParts;
}

/** vLLM's metrics and ours for a run's records, at the given percentiles (the thresholds may read more than
 *  --metric-percentiles reports). */
export function runFigures(
  records: readonly RequestRecord[],
  durationMs: number,
  settings: BenchSettings,
  percentiles: readonly number[],
): { metrics: VllmMetrics; extra: ExtraMetrics } {
  return {
    metrics: vllmMetrics(records, {
      durationMs,
      metricPercentiles: percentiles,
      ...(settings.goodput === undefined ? {} : { goodput: settings.goodput }),
      ...(settings.maxConcurrency === undefined ? {} : { maxConcurrency: settings.maxConcurrency }),
      requestRate: settings.requestRate,
    }),
    extra: extraMetrics(records, percentiles),
  };
}

/** Every registered feature's part, from the records and what it saw; `settings` undefined for a run known only
 *  from its files (`tokenmeter merge`). */
export function featureParts(
  settings: BenchSettings | undefined,
  records: readonly RequestRecord[],
  measured: readonly RequestRecord[],
  seen: FeatureParts,
  gatewayRecords?: readonly GatewaySide[],
): FeatureParts {
  const parts = new Map<AnyRunFeature, unknown>();
  for (const feature of BENCH_FEATURES) {
    const own = settings === undefined ? undefined : feature.settingsOf(settings);
    const part = feature.aggregate(
      own,
      { all: records, measured, ...(gatewayRecords === undefined ? {} : { gatewayRecords }) },
      seen.get(feature),
    );
    if (part !== undefined) parts.set(feature, part);
  }
  return parts;
}

/** What the shards' files say of each feature, merged as one run's (each feature's json.read, then its merge). */
export function mergedSeen(results: readonly JsonValueObject[]): FeatureParts {
  const seen = new Map<AnyRunFeature, unknown>();
  for (const feature of BENCH_FEATURES) {
    const read = feature.json?.read;
    if (read === undefined || feature.merge === undefined) continue;
    const parts = results.flatMap((json) => read(json) ?? []);
    const merged = parts.length === 0 ? undefined : feature.merge(parts);
    if (merged !== undefined) seen.set(feature, merged);
  }
  return seen;
}

/** A run's figures: on the measured records (a run cut short is measured on what ran; the requests Ctrl-C or the
 *  plan cancelled are no failures of the server). */
export function aggregateRun(
  output: RunOutput,
  settings: BenchSettings,
  context: { readonly target?: HintContext; readonly gatewayRecords?: readonly GatewaySide[] } = {},
): BenchRunResult {
  const { seen, ...rest } = output;
  const measured = measuredRecords(output.records, output.interruption);
  const { metrics, extra } = runFigures(measured, output.durationMs, settings, settings.metricPercentiles);
  const parts = featureParts(settings, output.records, measured, seen, context.gatewayRecords);
  return { ...rest, metrics, extra, parts, verdicts: runVerdicts(measured, extra, parts, context.target) };
}

/** What vLLM's summary and result add for this run: its probes, and what its features add (speculative decoding,
 *  the GPUs' energy). */
export function vllmSectionsOf(
  result: Pick<BenchRunResult, 'parts'> & { readonly probes?: ProbeStats },
): VllmRunSections {
  const sections: VllmRunSections = result.probes === undefined ? {} : { probes: result.probes };
  for (const feature of BENCH_FEATURES) {
    const part = result.parts.get(feature);
    if (part !== undefined && feature.vllm !== undefined) Object.assign(sections, feature.vllm(part));
  }
  return sections;
}

/** A run's --threshold list and default success floor, held against the figures its result JSON carries. The JSON
 *  is built here with every latency metric and the thresholds' percentiles as well as --metric-percentiles', so
 *  `ttft_p50 < 200ms` can be checked on a run that reports only p99, with the very code that saves the file. */
export function runChecks(
  result: BenchRunResult,
  settings: BenchSettings,
  run: RunDescription,
): ThresholdCheck[] {
  if (settings.thresholds.length === 0 && !settings.successFloor) return [];
  const percentiles = [...new Set([...settings.metricPercentiles, ...percentilesRead(settings.thresholds)])];
  // The figures the report shows: without what the run cancelled on purpose or by its interruption.
  const measured = measuredRecords(result.records, result.interruption);
  const { metrics, extra } = runFigures(measured, result.durationMs, settings, percentiles);
  const json = buildResultJson(
    { ...run, percentileMetrics: LATENCY_METRICS },
    metrics,
    extra,
    measured,
    false,
  );
  return checkThresholds(json, settings.thresholds, settings.successFloor);
}
