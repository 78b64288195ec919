// One threshold, `METRIC OP VALUE` (`ttft_p99 < 500ms`, `success_rate >= 0.99`, `output_throughput >= 200`), read
// from --threshold or the config file's "threshold" list. k6 users know the idea (`thresholds`, exit 99 when one
// is crossed); the metric names are the result JSON's, so one table (threshold-metrics.ts) says what each means.
// A threshold that cannot be read is a usage error, caught before anything is sent.

import { nearestNames } from '../../src/shared/nearest-names.js';
import { parseTimeMs, TIME_FORMS } from '../../src/shared/option-schema.js';
import { UsageError } from '../../src/shared/user-facing-error.js';
import { type ThresholdMetric, thresholdMetric, thresholdMetricNames } from './threshold-metrics.js';

const COMPARISONS = ['<', '<=', '>', '>='] as const;
export type Comparison = (typeof COMPARISONS)[number];

export interface Threshold {
  /** As the user wrote it, spaces normalised: `ttft_p99 < 500ms`. */
  readonly text: string;
  readonly metric: ThresholdMetric;
  readonly comparison: Comparison;
  /** The limit in the metric's unit (ms for latencies, s for duration, 0..1 for a share). */
  readonly limit: number;
}

const FORM = /^\s*([A-Za-z0-9_.:]+)\s*([<>=!]+)\s*(\S+(?:\s+\S+)?)\s*$/;
const EXAMPLE = "e.g. 'ttft_p99 < 500ms', 'success_rate >= 0.99', 'output_throughput >= 200'";

/** The limit in the metric's unit, or a sentence saying what was expected instead. */
function readLimit(metric: ThresholdMetric, text: string): number | string {
  switch (metric.unit) {
    case 'ms':
    case 's': {
      const ms = parseTimeMs(text, metric.unit);
      if (ms === undefined)
        return `${metric.name} is a time: ${TIME_FORMS}, or a bare number of ${metric.unit}`;
      return metric.unit === 's' ? ms / 1000 : ms;
    }
    case 'share': {
      const percent = /^(\d+(?:\.\d+)?)\s*%$/.exec(text);
      const value = percent === null ? Number(text) : Number(percent[1]) / 100;
      if (text.trim() === '' || !Number.isFinite(value) || value < 0 || value > 1)
        return `${metric.name} is a share between 0 and 1 (0.99 or 99%)`;
      return value;
    }
    default: {
      const value = Number(text);
      if (text.trim() === '' || !Number.isFinite(value) || value < 0)
        return `${metric.name} is in ${metric.unit}: give a plain number >= 0`;
      return value;
    }
  }
}

export function parseThreshold(text: string): Threshold {
  const wrong = (why: string): UsageError => new UsageError(`--threshold '${text}': ${why}`);
  const match = FORM.exec(text);
  if (match === null) throw wrong(`write METRIC OP VALUE, ${EXAMPLE}`);
  const [, written = '', operator = '', limitText = ''] = match;
  // `ttft:p99` is how SLOs are often written (and how vLLM's --goodput names its metrics): the same as `ttft_p99`.
  const name = written.replace(':', '_');
  const metric = thresholdMetric(name.toLowerCase());
  if (metric === undefined) {
    const near = nearestNames(name.toLowerCase(), thresholdMetricNames());
    const hint = near.length > 0 ? ` Did you mean ${near.join(' or ')}?` : '';
    throw wrong(
      `unknown metric '${written}' (the names are the result JSON's; see docs/loadgen-reference.md).${hint}`,
    );
  }
  if (!(COMPARISONS as readonly string[]).includes(operator))
    throw wrong(`'${operator}' is not a comparison: use <, <=, > or >=`);
  const limit = readLimit(metric, limitText);
  if (typeof limit === 'string') throw wrong(`'${limitText}': ${limit}`);
  return {
    text: `${metric.name} ${operator} ${limitText}`,
    metric,
    comparison: operator as Comparison,
    limit,
  };
}

/** Whether `value` (in the metric's unit) keeps the threshold; a run without the figure does not. */
export function keeps(threshold: Threshold, value: number | null): boolean {
  if (value === null) return false;
  switch (threshold.comparison) {
    case '<':
      return value < threshold.limit;
    case '<=':
      return value <= threshold.limit;
    case '>':
      return value > threshold.limit;
    case '>=':
      return value >= threshold.limit;
  }
}
