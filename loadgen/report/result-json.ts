// --save-result: the JSON file vLLM writes, with the same keys and file name, so existing notebooks and
// dashboards read ours unchanged; our extra figures go under one "tokenmeter" key that vLLM never uses.
//
// Units follow vLLM: summary figures in ms (`mean_ttft_ms`), detailed per-request arrays in SECONDS (`ttfts`,
// `itls`, `latencies`, `start_times`, `queue_times`), as vLLM stores its raw timings. Keys and their order are those of
// vLLM 009e6d4a's `vllm bench serve` (test/loadgen/vllm-report-parity.test.ts checks them against its own files).

import type { ModelPrice } from '../../src/gateway/config/model-prices.js';
import type { JsonValue } from '../../src/shared/json-object.js';
import { UsageError } from '../../src/shared/user-facing-error.js';
import { type RampUp, rateAt } from '../arrivals.js';
import { GPU_METRICS_KEY, gpuMetricsJson, vllmEnergyKeys } from '../gpu-metrics/gpu-metrics-json.js';
import type { ExtraMetrics } from '../metrics/extra-metrics.js';
import type { PercentileMetric } from '../metrics/metric-options.js';
import type { VllmMetrics } from '../metrics/vllm-metrics.js';
import { inputTokens, type RequestRecord } from '../record.js';
import { type ThresholdCheck, thresholdChecksJson } from '../thresholds/check-thresholds.js';
import { jsonWithPythonFloats, percentileWord, pythonFloatStr } from './python-format.js';
import { type TargetSettings, targetJson } from './run-target.js';
import { SECTIONS, statsOf, type VllmRunSections } from './vllm-summary.js';

export interface RunDescription {
  date: Date;
  /** --backend (vLLM saves it both as endpoint_type and backend). */
  backend: string;
  /** --label; defaults to the backend. */
  label?: string;
  modelId: string;
  /** vLLM's tokenizer_id: --tokenizer as given, else the model. */
  tokenizerId: string;
  /** The tokenizer that counted (`builtin`, or its tokenizer.json's source); saved as `tokenmeter.tokenizer`. */
  tokenizerName?: string;
  numPrompts: number;
  /** --request-rate; Infinity is saved as "inf". */
  requestRate: number;
  burstiness: number;
  maxConcurrency?: number;
  /** --ramp-up-strategy and its rates: saved as vLLM's ramp_up_* keys, with its rps_change_events. */
  rampUp?: RampUp;
  /** --metadata KEY=VALUE pairs, saved as top-level keys. */
  metadata?: Record<string, string>;
  percentileMetrics: readonly PercentileMetric[];
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

/** A ramp's rate in a file name: vLLM's are whole (`1qps`); ours may not be (`1.5qps`). */
const rampRate = (rps: number): string => (Number.isInteger(rps) ? String(rps) : pythonFloatStr(rps));

/**
 * `{label}-{rate}qps[-concurrency{N}]-{model basename}-{date}.json`, rate as a Python float ("1.0", "inf"); with
 * a ramp-up, `{label}-ramp-up-{strategy}-{start}qps-{end}qps[-concurrency{N}]-...` as vLLM names it.
 */
export function resultFileName(
  run: Pick<
    RunDescription,
    'date' | 'backend' | 'label' | 'modelId' | 'requestRate' | 'maxConcurrency' | 'rampUp'
  >,
): string {
  const label = run.label ?? run.backend;
  const concurrency = run.maxConcurrency === undefined ? '' : `-concurrency${run.maxConcurrency}`;
  const model = run.modelId.split('/').pop() ?? run.modelId;
  const load =
    run.rampUp === undefined
      ? `${pythonFloatStr(run.requestRate)}qps`
      : `ramp-up-${run.rampUp.strategy}-${rampRate(run.rampUp.startRps)}qps-${rampRate(run.rampUp.endRps)}qps`;
  return `${label}-${load}${concurrency}-${model}-${formatResultDate(run.date)}.json`;
}

/** The top-level keys vLLM's result file holds Python floats under (a whole value is written `20.0`). */
export function isVllmFloatKey(key: string): boolean {
  return VLLM_FLOAT_KEYS.has(key) || /^(mean|median|std|p\d+(\.\d+)?)_.+_ms$/.test(key);
}

const VLLM_FLOAT_KEYS: ReadonlySet<string> = new Set([
  'request_rate',
  'burstiness',
  'duration',
  'request_throughput',
  'request_goodput',
  'output_throughput',
  'total_token_throughput',
  'ttfts',
  'itls',
  'latencies',
  'start_times',
  'queue_times',
  'max_output_tokens_per_s',
  'rtfx',
  'probe_median_e2el_ms',
  'probe_p99_e2el_ms',
  'probe_max_e2el_ms',
  'spec_decode_acceptance_rate',
  'spec_decode_acceptance_length',
  'spec_decode_per_position_acceptance_rates',
]);

/** A result as the file holds it: vLLM's floats written as Python writes them; `indent` as JSON.stringify's. */
export function resultJsonText(json: Readonly<Record<string, JsonValue>>, indent?: number): string {
  return jsonWithPythonFloats(json, isVllmFloatKey, indent);
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

function latencyKeys(metrics: VllmMetrics, selected: readonly PercentileMetric[]): Record<string, number> {
  const keys: Record<string, number> = {};
  for (const { metric } of SECTIONS) {
    const stats = statsOf(metrics, metric);
    if (!selected.includes(metric) || stats === undefined) continue;
    keys[`mean_${metric}_ms`] = stats.mean;
    keys[`median_${metric}_ms`] = stats.median;
    keys[`std_${metric}_ms`] = stats.std;
    for (const [p, value] of stats.percentiles) keys[`p${percentileWord(p)}_${metric}_ms`] = value;
  }
  return keys;
}

const isOk = (r: RequestRecord): boolean => r.outcome === 'ok';

/** The per-request arrays of vLLM's result, in its order; all but `latencies` and `queue_times` (which vLLM
 *  keeps in every file) only with --save-detailed. Times in seconds. */
function perRequestKeys(records: readonly RequestRecord[], detailed: boolean): Record<string, JsonValue> {
  const latencies = records.map((r) => (r.lastTokenMs ?? 0) / 1000);
  const queueTimes = records.map((r) => r.clientQueueMs / 1000);
  if (!detailed) return { latencies, queue_times: queueTimes };
  return {
    input_lens: records.map(inputTokens),
    output_lens: records.map((r) => (isOk(r) ? r.outputTokens : 0)),
    ttfts: records.map((r) => (r.ttftMs ?? 0) / 1000),
    itls: records.map((r) => r.itlMs.map((gap) => gap / 1000)),
    latencies,
    start_times: records.map((r) => (r.sentAtMs ?? r.intendedOffsetMs) / 1000),
    queue_times: queueTimes,
    generated_texts: records.map((r) => r.generatedText ?? ''),
    errors: records.map((r) =>
      isOk(r) ? '' : [r.error, r.errorBodyExcerpt].filter((x) => x !== null).join(': '),
    ),
  };
}

/** Python's datetime.isoformat() of a local time: 2026-12-04T03:50:12.123456 (no fraction when it is 0). */
export function pythonIsoFormat(date: Date): string {
  const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
  const whole =
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
  const ms = date.getMilliseconds();
  return ms === 0 ? whole : `${whole}.${pad(ms, 3)}000`;
}

/** vLLM's rps_change_events of a ramp-up: each whole rate the ramp reached, when the request that reached it was
 *  sent (the first at the start). */
function rpsChangeEvents(run: RunDescription, records: readonly RequestRecord[]): JsonValue[] {
  const ramp = run.rampUp as RampUp;
  const at = (offsetMs: number): string => pythonIsoFormat(new Date(run.date.getTime() + offsetMs));
  let last = Math.trunc(ramp.startRps);
  const events: JsonValue[] = [{ rps: last, timestamp: at(0) }];
  const options = { requestRate: Number.POSITIVE_INFINITY, burstiness: 1, seed: 0, rampUp: ramp };
  for (const record of records) {
    const rate = Math.trunc(rateAt(record.index, run.numPrompts, options));
    if (rate <= last) continue;
    const timestamp = at(record.sentAtMs ?? record.intendedOffsetMs);
    for (let rps = last + 1; rps <= rate; rps++) events.push({ rps, timestamp });
    last = rate;
  }
  return events;
}

/** --per-chunk-usage's figures, only when some request had a running usage on every chunk. */
function chunkUsageKeys(
  extra: ExtraMetrics,
  stats: (s: ExtraMetrics['ttfb']) => JsonValue,
): Record<string, JsonValue> {
  const usage = extra.chunkUsage;
  if (usage.requests === 0) return {};
  return {
    per_chunk_usage: {
      requests: usage.requests,
      chunks: usage.chunks,
      multi_token_chunks: usage.multiTokenChunks,
      multi_token_chunk_share: usage.chunks === 0 ? 0 : usage.multiTokenChunks / usage.chunks,
    },
    per_token_itl: stats(extra.perTokenItl),
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
    ...chunkUsageKeys(extra, stats),
    schedule_lag: stats(extra.scheduleLag),
    client_queue: stats(extra.clientQueue),
    output_token_sources: extra.outputTokenSources,
    input_tokens_by_tokenizer: extra.inputTokens.byTokenizer,
    requests_with_server_input_count: extra.inputTokens.requestsWithServerCount,
  };
  if (run.tokenizerName !== undefined) result['tokenizer'] = run.tokenizerName;
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
    if (extra.chunkUsage.requests > 0)
      result['chunk_tokens'] = records.map((r) => (r.chunkTokens === undefined ? null : [...r.chunkTokens]));
    result['output_token_sources'] = records.map((r) => r.outputTokensSource);
    result['input_lens_by_tokenizer'] = records.map((r) => r.promptTokens);
    // --request-cancellation-rate: when each cancelled request was cut (ms after its send), null for the others.
    if (records.some((r) => r.cancelDelayMs !== undefined))
      result['cancelled_at_ms'] = records.map((r) => r.cancelledAtMs ?? null);
  }
  return result;
}

/** vLLM's probe_* keys (--probe-request-rate): counts whole, latencies in ms. */
function probeKeys(sections: VllmRunSections): Record<string, JsonValue> {
  const stats = sections.probes;
  if (stats === undefined) return {};
  return {
    probe_completed: stats.completed,
    probe_failed: stats.failed,
    probe_median_e2el_ms: stats.medianE2elMs,
    probe_p99_e2el_ms: stats.p99E2elMs,
    probe_max_e2el_ms: stats.maxE2elMs,
  };
}

/** vLLM's spec_decode_* keys: its counts whole, the rate in percent, the positions' rates as fractions. */
function specDecodeKeys(sections: VllmRunSections): Record<string, JsonValue> {
  const stats = sections.specDecode;
  if (stats === undefined) return {};
  return {
    spec_decode_acceptance_rate: stats.acceptanceRate,
    spec_decode_acceptance_length: stats.acceptanceLength,
    spec_decode_num_drafts: stats.numDrafts,
    spec_decode_draft_tokens: stats.draftTokens,
    spec_decode_accepted_tokens: stats.acceptedTokens,
    spec_decode_per_position_acceptance_rates: [...stats.perPositionAcceptanceRates],
  };
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
  sections: VllmRunSections = {},
): Record<string, JsonValue> {
  const backend = run.backend;
  const tokenmeter = { ...extraKeys(run, extra, records, detailed), ...more };
  if (sections.gpu !== undefined)
    tokenmeter[GPU_METRICS_KEY] = gpuMetricsJson(sections.gpu, metrics.totalOutput);
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
    ...(run.rampUp === undefined
      ? {}
      : {
          ramp_up_strategy: run.rampUp.strategy,
          ramp_up_start_rps: run.rampUp.startRps,
          ramp_up_end_rps: run.rampUp.endRps,
        }),
    duration: metrics.durationS,
    completed: metrics.completed,
    failed: metrics.failed,
    total_input_tokens: metrics.totalInput,
    total_output_tokens: metrics.totalOutput,
    request_throughput: metrics.requestThroughput,
    request_goodput: metrics.requestGoodput,
    output_throughput: metrics.outputThroughput,
    total_token_throughput: metrics.totalTokenThroughput,
    ...perRequestKeys(records, detailed),
    max_output_tokens_per_s: metrics.maxOutputTokensPerS,
    max_concurrent_requests: metrics.maxConcurrentRequests,
    // vLLM's inverse real-time factor of audio benchmarks: 0 for text.
    rtfx: 0,
    ...probeKeys(sections),
    ...(run.rampUp === undefined ? {} : { rps_change_events: rpsChangeEvents(run, records) }),
    ...specDecodeKeys(sections),
    ...latencyKeys(metrics, run.percentileMetrics),
    ...vllmEnergyKeys(sections.gpu, metrics.totalOutput),
    tokenmeter,
  };
}
