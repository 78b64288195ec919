// --save-result: the JSON file vLLM writes, with the same keys and file name, so existing notebooks and
// dashboards read ours unchanged; our extra figures go under one "tokenmeter" key that vLLM never uses.
//
// Units follow vLLM: summary figures in ms (`mean_ttft_ms`), detailed per-request arrays in SECONDS (`ttfts`,
// `itls`, `latencies`, `start_times`), as vLLM stores its raw timings.

import type { ModelPrice } from '../../src/gateway/model-prices.js';
import type { JsonValue } from '../../src/shared/json-object.js';
import { UsageError } from '../../src/shared/usage-error.js';
import type { ExtraMetrics } from '../metrics/extra-metrics.js';
import type { LatencyMetric } from '../metrics/metric-options.js';
import type { VllmMetrics } from '../metrics/vllm-metrics.js';
import type { RequestRecord } from '../record.js';
import { type ThresholdCheck, thresholdChecksJson } from '../thresholds/check-thresholds.js';
import { percentileWord, pythonFloatStr } from './python-format.js';
import { type TargetSettings, targetJson } from './run-target.js';

export interface RunDescription {
  date: Date;
  /** --backend (vLLM saves it both as endpoint_type and backend). */
  backend: string;
  /** --label; defaults to the backend. */
  label?: string;
  modelId: string;
  tokenizerId: string;
  numPrompts: number;
  /** --request-rate; Infinity is saved as "inf". */
  requestRate: number;
  burstiness: number;
  maxConcurrency?: number;
  /** --metadata KEY=VALUE pairs, saved as top-level keys. */
  metadata?: Record<string, string>;
  percentileMetrics: readonly LatencyMetric[];
  /** Where the requests went and from where; saved as `tokenmeter.target`. */
  target?: TargetSettings;
  /** The run's records file, relative to the result file's folder; saved as `tokenmeter.records_file`. */
  recordsFile?: string;
  /** --price-input/--price-output: the run's cost is saved as `tokenmeter.cost` (loadgen/cost/cost-report.ts). */
  price?: ModelPrice;
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

/** Python's `strftime("%Y%m%d-%H%M%S")` in local time, as vLLM uses for `date` and file names. */
export function formatResultDate(date: Date): string {
  return (
    `${date.getFullYear()}${pad2(date.getMonth() + 1)}${pad2(date.getDate())}-` +
    `${pad2(date.getHours())}${pad2(date.getMinutes())}${pad2(date.getSeconds())}`
  );
}

/** `{label}-{rate}qps[-concurrency{N}]-{model basename}-{date}.json`, rate as a Python float ("1.0", "inf"). */
export function resultFileName(
  run: Pick<RunDescription, 'date' | 'backend' | 'label' | 'modelId' | 'requestRate' | 'maxConcurrency'>,
): string {
  const label = run.label ?? run.backend;
  const concurrency = run.maxConcurrency === undefined ? '' : `-concurrency${run.maxConcurrency}`;
  const model = run.modelId.split('/').pop() ?? run.modelId;
  return `${label}-${pythonFloatStr(run.requestRate)}qps${concurrency}-${model}-${formatResultDate(run.date)}.json`;
}

/** --metadata KEY=VALUE ... -> { KEY: VALUE }; the value is everything after the first '='. */
export function parseMetadataPairs(items: readonly string[]): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const item of items) {
    const at = item.indexOf('=');
    if (at <= 0) throw new UsageError(`--metadata: '${item}' should be KEY=VALUE`);
    pairs[item.slice(0, at).trim()] = item.slice(at + 1).trim();
  }
  return pairs;
}

function latencyKeys(metrics: VllmMetrics, selected: readonly LatencyMetric[]): Record<string, number> {
  const keys: Record<string, number> = {};
  for (const metric of ['ttft', 'tpot', 'itl', 'e2el'] as const) {
    if (!selected.includes(metric)) continue;
    const stats = metrics.latency[metric];
    keys[`mean_${metric}_ms`] = stats.mean;
    keys[`median_${metric}_ms`] = stats.median;
    keys[`std_${metric}_ms`] = stats.std;
    for (const [p, value] of stats.percentiles) keys[`p${percentileWord(p)}_${metric}_ms`] = value;
  }
  return keys;
}

/** vLLM's --save-detailed arrays, one entry per request in dataset order. */
function detailedKeys(records: readonly RequestRecord[]): Record<string, JsonValue> {
  const ok = (r: RequestRecord): boolean => r.outcome === 'ok';
  return {
    input_lens: records.map((r) => r.promptTokens),
    output_lens: records.map((r) => (ok(r) ? r.outputTokens : 0)),
    ttfts: records.map((r) => (r.ttftMs ?? 0) / 1000),
    itls: records.map((r) => r.itlMs.map((gap) => gap / 1000)),
    start_times: records.map((r) => (r.sentAtMs ?? r.intendedOffsetMs) / 1000),
    latencies: records.map((r) => (r.lastTokenMs ?? 0) / 1000),
    generated_texts: records.map((r) => r.generatedText ?? ''),
    errors: records.map((r) =>
      ok(r) ? '' : [r.error, r.errorBodyExcerpt].filter((x) => x !== null).join(': '),
    ),
  };
}

function extraKeys(
  run: RunDescription,
  extra: ExtraMetrics,
  records: readonly RequestRecord[],
  detailed: boolean,
): Record<string, JsonValue> {
  const stats = (s: ExtraMetrics['ttfb']): JsonValue => ({
    count: s.count,
    mean_ms: s.mean,
    median_ms: s.median,
    std_ms: s.std,
    percentiles_ms: Object.fromEntries(s.percentiles.map(([p, v]) => [`p${percentileWord(p)}`, v])),
  });
  const failures: Record<string, JsonValue> = {};
  for (const [outcome, kind] of Object.entries(extra.failuresByKind)) {
    if (kind === undefined) continue;
    failures[outcome] = {
      count: kind.count,
      first_index: kind.firstIndex,
      first_error: kind.firstError,
      first_body_excerpt: kind.firstBodyExcerpt,
      statuses: kind.statuses,
    };
  }
  const result: Record<string, JsonValue> = {
    success_rate: extra.successRate,
    failures_by_kind: failures,
    ttfb: stats(extra.ttfb),
    ttfo: stats(extra.ttfo),
    reasoning_time: stats(extra.reasoningTime),
    reasoning_tokens: extra.reasoning.tokens,
    requests_with_reasoning: extra.reasoning.requests,
    tokens_per_chunk: stats(extra.tokensPerChunk),
    schedule_lag: stats(extra.scheduleLag),
    client_queue: stats(extra.clientQueue),
    output_token_sources: extra.outputTokenSources,
  };
  if (run.target !== undefined) result['target'] = targetJson(run.target, run.backend, run.modelId, records);
  if (run.recordsFile !== undefined) result['records_file'] = run.recordsFile;
  if (detailed) {
    result['outcomes'] = records.map((r) => r.outcome);
    result['statuses'] = records.map((r) => r.status);
    result['intended_offsets_ms'] = records.map((r) => r.intendedOffsetMs);
    result['client_queue_ms'] = records.map((r) => r.clientQueueMs);
    result['ttfbs_ms'] = records.map((r) => r.ttfbMs);
    result['ttfos_ms'] = records.map((r) => r.ttfoMs ?? null);
    result['reasoning_tokens_per_request'] = records.map((r) => r.reasoningTokens ?? null);
    result['chunk_counts'] = records.map((r) => r.contentChunks);
    result['output_token_sources'] = records.map((r) => r.outputTokensSource);
  }
  return result;
}

/** The object to write with JSON.stringify; keys in vLLM's order, then "tokenmeter" (with the run's threshold
 *  checks, when it has any, under "thresholds", and `more`: its cost and budget stop). */
export function buildResultJson(
  run: RunDescription,
  metrics: VllmMetrics,
  extra: ExtraMetrics,
  records: readonly RequestRecord[],
  detailed: boolean,
  checks: readonly ThresholdCheck[] = [],
  more: Readonly<Record<string, JsonValue>> = {},
): Record<string, JsonValue> {
  const backend = run.backend;
  const tokenmeter = { ...extraKeys(run, extra, records, detailed), ...more };
  if (checks.length > 0) tokenmeter['thresholds'] = thresholdChecksJson(checks);
  return {
    date: formatResultDate(run.date),
    endpoint_type: backend,
    backend,
    label: run.label ?? null,
    model_id: run.modelId,
    tokenizer_id: run.tokenizerId,
    num_prompts: run.numPrompts,
    ...(run.metadata ?? {}),
    request_rate: Number.isFinite(run.requestRate) ? run.requestRate : 'inf',
    burstiness: Number.isFinite(run.burstiness) ? run.burstiness : 'inf',
    max_concurrency: run.maxConcurrency ?? null,
    duration: metrics.durationS,
    completed: metrics.completed,
    failed: metrics.failed,
    total_input_tokens: metrics.totalInput,
    total_output_tokens: metrics.totalOutput,
    request_throughput: metrics.requestThroughput,
    request_goodput: metrics.requestGoodput,
    output_throughput: metrics.outputThroughput,
    total_token_throughput: metrics.totalTokenThroughput,
    max_output_tokens_per_s: metrics.maxOutputTokensPerS,
    max_concurrent_requests: metrics.maxConcurrentRequests,
    ...latencyKeys(metrics, run.percentileMetrics),
    ...(detailed ? detailedKeys(records) : {}),
    tokenmeter,
  };
}
