// What a threshold can name: every figure the result JSON carries, under one name each, mapped to where the
// result JSON keeps it. A threshold's value is read from the result JSON itself, so a threshold and the saved
// file can never disagree. Names follow vLLM's keys: `ttft_p99` is `p99_ttft_ms`, `output_throughput` is
// `output_throughput`; tokenmeter's own figures (`success_rate`, `ttfb_p99`, ...) are read under its key.

import { LATENCY_METRICS } from '../metrics/metric-options.js';
import { percentileWord } from '../report/python-format.js';

/** The unit a metric's value (and a threshold's limit, when it is written without one) is in. */
export type MetricUnit = 'ms' | 's' | 'share' | 'req/s' | 'tok/s' | 'requests' | 'tokens';

export interface ThresholdMetric {
  readonly name: string;
  readonly unit: MetricUnit;
  /** Keys leading to the value in the result JSON. */
  readonly path: readonly string[];
  /** The percentile the result JSON must be built with for the value to be there. */
  readonly percentile?: number;
}

/** Result JSON keys that are themselves the metric (vLLM's summary figures), with their unit. */
const TOP_LEVEL: Readonly<Record<string, MetricUnit>> = {
  duration: 's',
  completed: 'requests',
  failed: 'requests',
  total_input_tokens: 'tokens',
  total_output_tokens: 'tokens',
  request_throughput: 'req/s',
  request_goodput: 'req/s',
  output_throughput: 'tok/s',
  total_token_throughput: 'tok/s',
  max_output_tokens_per_s: 'tok/s',
  max_concurrent_requests: 'requests',
};

/** tokenmeter's distributions (under the result JSON's `tokenmeter` key), with their unit. */
const TOKENMETER_STATS: Readonly<Record<string, MetricUnit>> = {
  ttfb: 'ms',
  ttfo: 'ms',
  reasoning_time: 'ms',
  schedule_lag: 'ms',
  client_queue: 'ms',
  tokens_per_chunk: 'tokens',
  per_token_itl: 'ms',
};

const SUMMARY_STATS = ['mean', 'median', 'std'] as const;
/** Only for "did you mean": any percentile between 0 and 100 is accepted. */
const SUGGESTED_PERCENTILES = [50, 90, 95, 99];

const STAT_NAME = /^([a-z0-9_]+)_(mean|median|std|p(\d+(?:\.\d+)?))$/;

function latencyMetric(family: string, stat: string, percentile: number | undefined): ThresholdMetric {
  const name = `${family}_${stat}`;
  if (percentile === undefined) return { name, unit: 'ms', path: [`${stat}_${family}_ms`] };
  return { name, unit: 'ms', path: [`p${percentileWord(percentile)}_${family}_ms`], percentile };
}

function tokenmeterStat(family: string, stat: string, percentile: number | undefined): ThresholdMetric {
  const name = `${family}_${stat}`;
  const unit = TOKENMETER_STATS[family] ?? 'ms';
  if (percentile === undefined) return { name, unit, path: ['tokenmeter', family, `${stat}_ms`] };
  const key = `p${percentileWord(percentile)}`;
  return { name, unit, path: ['tokenmeter', family, 'percentiles_ms', key], percentile };
}

/** The metric a threshold names, or undefined for a name the result JSON has no figure for. */
export function thresholdMetric(name: string): ThresholdMetric | undefined {
  const unit = TOP_LEVEL[name];
  if (unit !== undefined) return { name, unit, path: [name] };
  if (name === 'success_rate') return { name, unit: 'share', path: ['tokenmeter', 'success_rate'] };
  const match = STAT_NAME.exec(name);
  if (match === null) return undefined;
  const [, family = '', stat = '', percentileText] = match;
  const percentile = percentileText === undefined ? undefined : Number(percentileText);
  if (percentile !== undefined && !(percentile > 0 && percentile <= 100)) return undefined;
  if ((LATENCY_METRICS as readonly string[]).includes(family)) return latencyMetric(family, stat, percentile);
  if (family in TOKENMETER_STATS) return tokenmeterStat(family, stat, percentile);
  return undefined;
}

/** Every name a threshold can use (percentiles shown as p50, p90, p95, p99): the list "did you mean" draws from. */
export function thresholdMetricNames(): string[] {
  const stats = [...SUMMARY_STATS, ...SUGGESTED_PERCENTILES.map((p) => `p${p}`)];
  const families = [...LATENCY_METRICS, ...Object.keys(TOKENMETER_STATS)];
  return [
    ...Object.keys(TOP_LEVEL),
    'success_rate',
    ...families.flatMap((family) => stats.map((stat) => `${family}_${stat}`)),
  ];
}
