// The inference servers' own Prometheus names for what a run needs to explain its knee, stated once. vLLM's are
// those of vllm/v1/metrics/loggers.py and vllm/v1/spec_decode/metrics.py at commit 005a810bc40f (V1 engine,
// prometheus_client appends `_total` to counters on the page), with the names older releases exposed (the V0
// engine's vllm/engine/metrics.py at 00c33e81b526: `vllm:gpu_cache_usage_perc`, `vllm:gpu_prefix_cache_*`,
// deprecated in 0.9); SGLang's are python/sglang/srt/metrics/collector.py's at 93d04878cfb9. Each figure lists its
// names newest first: the first one the page carries is read, and the result says which it was.

export type ServerFamily = 'vllm' | 'sglang';

/** A gauge summed over the page's label sets (engines, models), or its largest (a share, such as KV usage). */
export type GaugeFigure = 'kvUsage' | 'running' | 'waiting' | 'prefixHitRate';
/** A counter summed over label sets; read as its increase over the run. */
export type CounterFigure =
  | 'preemptions'
  | 'prefixQueries'
  | 'prefixHits'
  | 'specDrafts'
  | 'specDraftTokens'
  | 'specAcceptedTokens';
/** A classic histogram (its `_bucket` samples), in seconds. */
export type HistogramFigure = 'ttft' | 'queueTime';

export const GAUGE_NAMES: Readonly<Record<GaugeFigure, readonly string[]>> = {
  kvUsage: ['vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc', 'sglang:token_usage'],
  running: ['vllm:num_requests_running', 'sglang:num_running_reqs'],
  waiting: ['vllm:num_requests_waiting', 'sglang:num_queue_reqs'],
  // A gauge only where no counters exist: vLLM 0.5-0.6's V0 engine and SGLang.
  prefixHitRate: ['vllm:gpu_prefix_cache_hit_rate', 'sglang:cache_hit_rate'],
};

export const COUNTER_NAMES: Readonly<Record<CounterFigure, readonly string[]>> = {
  preemptions: ['vllm:num_preemptions_total'],
  prefixQueries: ['vllm:prefix_cache_queries_total', 'vllm:gpu_prefix_cache_queries_total'],
  prefixHits: ['vllm:prefix_cache_hits_total', 'vllm:gpu_prefix_cache_hits_total'],
  specDrafts: ['vllm:spec_decode_num_drafts_total'],
  specDraftTokens: ['vllm:spec_decode_num_draft_tokens_total'],
  specAcceptedTokens: ['vllm:spec_decode_num_accepted_tokens_total'],
};

export const HISTOGRAM_NAMES: Readonly<Record<HistogramFigure, readonly string[]>> = {
  ttft: ['vllm:time_to_first_token_seconds', 'sglang:time_to_first_token_seconds'],
  queueTime: ['vllm:request_queue_time_seconds', 'sglang:queue_time_seconds'],
};

/**
 * vLLM's accepted drafts by draft position, one series per `position` label: read per position, not summed over
 * them (spec-decode.ts turns it into vLLM's per-position acceptance rates).
 */
export const SPEC_ACCEPTED_PER_POSITION = 'vllm:spec_decode_num_accepted_tokens_per_pos_total';

/** Gauges that are shares of one engine's memory: the fullest engine is what runs out, not their sum. */
export const LARGEST_NOT_SUM: ReadonlySet<GaugeFigure> = new Set(['kvUsage', 'prefixHitRate']);

/** Which server a name belongs to. */
export function familyOf(name: string): ServerFamily | undefined {
  if (name.startsWith('vllm:')) return 'vllm';
  if (name.startsWith('sglang:')) return 'sglang';
  return undefined;
}

const EVERY_NAME: ReadonlySet<string> = new Set([
  ...Object.values(GAUGE_NAMES).flat(),
  ...Object.values(COUNTER_NAMES).flat(),
  ...Object.values(HISTOGRAM_NAMES).flatMap((names) => names.map((n) => `${n}_bucket`)),
  SPEC_ACCEPTED_PER_POSITION,
]);

/** Whether a sample line's name is one this reader uses (the page's other lines are not even split). */
export function isServerMetricName(name: string): boolean {
  return EVERY_NAME.has(name);
}
