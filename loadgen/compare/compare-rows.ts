// The figures `compare` puts side by side, and which direction is better for each: latencies are better
// lower, throughputs and success higher; duration and the like have no better side (null). Rows for a
// latency metric or percentile appear when any run has them, since vLLM saves only --percentile-metrics.

import type { JsonObject } from '../report/read-result-file.js';
import { extraStat, numberField, percentileWords, successRate } from '../report/result-fields.js';

export type BetterWhen = 'lower' | 'higher' | null;

export interface RowSpec {
  /** Stable id for --json readers: the result key, or `tokenmeter.<name>` for ours. */
  key: string;
  label: string;
  unit: string;
  better: BetterWhen;
  /** Whole numbers (request counts) print without decimals. */
  integer?: boolean;
  read(json: JsonObject): number | null;
}

const LATENCY_NAMES = [
  ['ttft', 'TTFT'],
  ['tpot', 'TPOT'],
  ['itl', 'ITL'],
  ['e2el', 'E2EL'],
] as const;

function plain(key: string, label: string, unit: string, better: BetterWhen, integer = false): RowSpec {
  return { key, label, unit, better, integer, read: (json) => numberField(json, key) };
}

function latencyRows(metric: string, name: string, runs: readonly JsonObject[]): RowSpec[] {
  const words = [...new Set(runs.flatMap((json) => percentileWords(json, metric)))].sort(
    (a, b) => Number(a) - Number(b),
  );
  return [
    plain(`mean_${metric}_ms`, `Mean ${name}`, 'ms', 'lower'),
    plain(`median_${metric}_ms`, `Median ${name}`, 'ms', 'lower'),
    ...words.map((word) => plain(`p${word}_${metric}_ms`, `P${word} ${name}`, 'ms', 'lower')),
  ];
}

function ttfbRows(runs: readonly JsonObject[]): RowSpec[] {
  const words = new Set<string>();
  for (const json of runs) {
    for (const word of ['p50', 'p90', 'p95', 'p99', 'p99.9']) {
      if (extraStat(json, 'ttfb', word) !== null) words.add(word);
    }
  }
  const stat = (field: string, label: string): RowSpec => ({
    key: `tokenmeter.ttfb.${field}`,
    label,
    unit: 'ms',
    better: 'lower',
    read: (json) => extraStat(json, 'ttfb', field),
  });
  return [
    stat('mean_ms', 'Mean TTFB'),
    stat('median_ms', 'Median TTFB'),
    ...[...words].map((word) => stat(word, `${word.toUpperCase()} TTFB`)),
  ];
}

/** Every row that at least one of the runs has a value for, in the order the summary prints them. */
export function compareRowSpecs(runs: readonly JsonObject[]): RowSpec[] {
  const rows: RowSpec[] = [
    plain('completed', 'Successful requests', '', 'higher', true),
    plain('failed', 'Failed requests', '', 'lower', true),
    {
      key: 'tokenmeter.success_rate',
      label: 'Success rate',
      unit: '%',
      better: 'higher',
      read: (json) => {
        const rate = successRate(json);
        return rate === null ? null : rate * 100;
      },
    },
    plain('duration', 'Benchmark duration', 's', null),
    plain('request_throughput', 'Request throughput', 'req/s', 'higher'),
    plain('request_goodput', 'Request goodput', 'req/s', 'higher'),
    plain('output_throughput', 'Output token throughput', 'tok/s', 'higher'),
    plain('max_output_tokens_per_s', 'Peak output token throughput', 'tok/s', 'higher'),
    plain('total_token_throughput', 'Total token throughput', 'tok/s', 'higher'),
    ...LATENCY_NAMES.flatMap(([metric, name]) => latencyRows(metric, name, runs)),
    ...ttfbRows(runs),
  ];
  return rows.filter((row) => runs.some((json) => row.read(json) !== null));
}
