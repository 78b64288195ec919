// The figures `compare` puts side by side, and which direction is better for each: latencies are better
// lower, throughputs and success higher; duration and the like have no better side (null). Rows for a
// latency metric or percentile appear when any run has them, since vLLM saves only --percentile-metrics.
// Each row also says how its interval is drawn from the records (bootstrap.ts), or why it has none.

import type { JsonValueObject } from '../../src/shared/json-object.js';
import {
  extraStat,
  failedCount,
  numberField,
  percentileWords,
  successRate,
  tokenmeterSection,
} from '../report/result-fields.js';
import type { Statistic } from './bootstrap.js';
import type { RateAmount, SampleName } from './request-samples.js';

export type BetterWhen = 'lower' | 'higher' | null;

/** How a row's interval is drawn: a statistic of resampled requests (scaled), a rate over time windows, or none. */
export type IntervalSpec =
  | {
      readonly kind: 'requests';
      readonly sample: SampleName;
      readonly statistic: Statistic;
      readonly scale: number;
    }
  | { readonly kind: 'rate'; readonly amount: RateAmount }
  | { readonly kind: 'none'; readonly reason: string };

function fromRequests(sample: SampleName, statistic: Statistic, scale = 1): IntervalSpec {
  return { kind: 'requests', sample, statistic, scale };
}

const MEAN: Statistic = { kind: 'mean' };
const MEDIAN: Statistic = { kind: 'percentile', p: 50 };
const SUM: Statistic = { kind: 'sum' };

export interface RowSpec {
  /** Stable id for --json readers: the result key, or `tokenmeter.<name>` for ours. */
  key: string;
  label: string;
  unit: string;
  better: BetterWhen;
  /** Whole numbers (request counts) print without decimals. */
  integer?: boolean;
  /** Null for rows with no better side: nothing to decide. */
  interval: IntervalSpec | null;
  read(json: JsonValueObject): number | null;
}

const LATENCY_NAMES = [
  ['ttft', 'TTFT'],
  ['tpot', 'TPOT'],
  ['itl', 'ITL'],
  ['e2el', 'E2EL'],
] as const;

function plain(
  key: string,
  label: string,
  unit: string,
  better: BetterWhen,
  interval: IntervalSpec | null,
  integer = false,
): RowSpec {
  return { key, label, unit, better, integer, interval, read: (json) => numberField(json, key) };
}

function latencyRows(metric: SampleName, name: string, runs: readonly JsonValueObject[]): RowSpec[] {
  const words = [...new Set(runs.flatMap((json) => percentileWords(json, metric)))].sort(
    (a, b) => Number(a) - Number(b),
  );
  return [
    plain(`mean_${metric}_ms`, `Mean ${name}`, 'ms', 'lower', fromRequests(metric, MEAN)),
    plain(`median_${metric}_ms`, `Median ${name}`, 'ms', 'lower', fromRequests(metric, MEDIAN)),
    ...words.map((word) =>
      plain(
        `p${word}_${metric}_ms`,
        `P${word} ${name}`,
        'ms',
        'lower',
        fromRequests(metric, { kind: 'percentile', p: Number(word) }),
      ),
    ),
  ];
}

function reasoned(json: JsonValueObject): boolean {
  return (numberField(tokenmeterSection(json), 'requests_with_reasoning') ?? 0) > 0;
}

/** Rows of one of tokenmeter's distributions under its result key (`tokenmeter.ttfb`, `tokenmeter.ttfo`). */
function extraStatRows(metric: 'ttfb' | 'ttfo', name: string, runs: readonly JsonValueObject[]): RowSpec[] {
  const words = new Set<string>();
  for (const json of runs) {
    for (const word of ['p50', 'p90', 'p95', 'p99', 'p99.9']) {
      if (extraStat(json, metric, word) !== null) words.add(word);
    }
  }
  const stat = (field: string, label: string, statistic: Statistic): RowSpec => ({
    key: `tokenmeter.${metric}.${field}`,
    label,
    unit: 'ms',
    better: 'lower',
    interval: fromRequests(metric, statistic),
    read: (json) => extraStat(json, metric, field),
  });
  return [
    stat('mean_ms', `Mean ${name}`, MEAN),
    stat('median_ms', `Median ${name}`, MEDIAN),
    ...[...words].map((word) =>
      stat(word, `${word.toUpperCase()} ${name}`, { kind: 'percentile', p: Number(word.slice(1)) }),
    ),
  ];
}

/** Every row that at least one of the runs has a value for, in the order the summary prints them. */
export function compareRowSpecs(runs: readonly JsonValueObject[]): RowSpec[] {
  const rows: RowSpec[] = [
    plain('completed', 'Successful requests', '', 'higher', fromRequests('ok', SUM), true),
    {
      ...plain('failed', 'Failed requests', '', 'lower', fromRequests('failed', SUM), true),
      read: (json) => failedCount(json).value,
    },
    {
      key: 'tokenmeter.success_rate',
      label: 'Success rate',
      unit: '%',
      better: 'higher',
      interval: fromRequests('ok', MEAN, 100),
      read: (json) => {
        const rate = successRate(json);
        return rate === null ? null : rate * 100;
      },
    },
    plain('duration', 'Benchmark duration', 's', null, null),
    plain('request_throughput', 'Request throughput', 'req/s', 'higher', {
      kind: 'rate',
      amount: 'requests',
    }),
    {
      ...plain('request_goodput', 'Request goodput', 'req/s', 'higher', {
        kind: 'none',
        reason: 'SLOs not saved',
      }),
      // vLLM 0.8.5 and earlier spelled the key with a colon.
      read: (json) => numberField(json, 'request_goodput') ?? numberField(json, 'request_goodput:'),
    },
    plain('output_throughput', 'Output token throughput', 'tok/s', 'higher', {
      kind: 'rate',
      amount: 'output_tokens',
    }),
    plain('max_output_tokens_per_s', 'Peak output token throughput', 'tok/s', 'higher', {
      kind: 'none',
      reason: 'a peak',
    }),
    plain('total_token_throughput', 'Total token throughput', 'tok/s', 'higher', {
      kind: 'rate',
      amount: 'total_tokens',
    }),
    ...LATENCY_NAMES.flatMap(([metric, name]) => latencyRows(metric, name, runs)),
    ...extraStatRows('ttfb', 'TTFB', runs),
    // TTFO says something TTFT does not only where a model reasoned.
    ...(runs.some(reasoned) ? extraStatRows('ttfo', 'TTFO', runs) : []),
  ];
  return rows.filter((row) => runs.some((json) => row.read(json) !== null));
}
