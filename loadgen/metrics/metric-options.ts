// Parsing of the vLLM flags that choose what is reported: --percentile-metrics, --metric-percentiles and
// --goodput. Unlike vLLM, an unknown metric name is a usage error (exit 2) with a suggestion, never silently
// ignored.

import { nearestNames } from '../../src/shared/nearest-names.js';
import { UsageError } from '../../src/shared/user-facing-error.js';

export type LatencyMetric = 'ttft' | 'tpot' | 'itl' | 'e2el';
export const LATENCY_METRICS: readonly LatencyMetric[] = Object.freeze(['ttft', 'tpot', 'itl', 'e2el']);

/** vLLM's client-side queueing figures: reported only with --max-concurrency (its semaphore is the queue), the
 *  second only with a finite rate too. */
export type QueueMetric = 'client_queue_time' | 'e2el_including_client_queue';
export const QUEUE_METRICS: readonly QueueMetric[] = Object.freeze([
  'client_queue_time',
  'e2el_including_client_queue',
]);
/** What --percentile-metrics may name. */
export type PercentileMetric = LatencyMetric | QueueMetric;
const PERCENTILE_METRICS: readonly PercentileMetric[] = Object.freeze([...LATENCY_METRICS, ...QUEUE_METRICS]);

/** vLLM's defaults. */
export const DEFAULT_PERCENTILE_METRICS: readonly LatencyMetric[] = Object.freeze(['ttft', 'tpot', 'itl']);
export const DEFAULT_METRIC_PERCENTILES: readonly number[] = Object.freeze([99]);

/** Service-level objectives in ms; a request is "good" when it meets every one given. */
export type GoodputSlos = Partial<Record<'ttft' | 'tpot' | 'e2el', number>>;
const GOODPUT_METRICS = ['ttft', 'tpot', 'e2el'] as const;

function unknownName(flag: string, name: string, known: readonly string[]): UsageError {
  const near = nearestNames(name, known);
  const hint = near.length > 0 ? ` Did you mean ${near.join(' or ')}?` : '';
  return new UsageError(`${flag}: unknown metric '${name}'; choose from ${known.join(', ')}.${hint}`);
}

/** "ttft,tpot,itl" -> ['ttft', 'tpot', 'itl']. */
export function parsePercentileMetrics(text: string): PercentileMetric[] {
  const names = text
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  return names.map((name) => {
    if (!(PERCENTILE_METRICS as readonly string[]).includes(name))
      throw unknownName('--percentile-metrics', name, PERCENTILE_METRICS);
    return name as PercentileMetric;
  });
}

/** "25,50,99.9" -> [25, 50, 99.9]. */
export function parseMetricPercentiles(text: string): number[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const value = Number(part);
      if (part === '' || !Number.isFinite(value) || value < 0 || value > 100) {
        throw new UsageError(`--metric-percentiles: '${part}' is not a number between 0 and 100`);
      }
      return value;
    });
}

/** ["ttft:200", "tpot:50"] -> { ttft: 200, tpot: 50 }. */
export function parseGoodput(pairs: readonly string[]): GoodputSlos {
  const slos: GoodputSlos = {};
  for (const pair of pairs) {
    const [name = '', value, ...rest] = pair.split(':');
    const key = name.trim().toLowerCase();
    if (value === undefined || rest.length > 0) {
      throw new UsageError(`--goodput: '${pair}' should be NAME:MILLISECONDS, e.g. ttft:200`);
    }
    if (!(GOODPUT_METRICS as readonly string[]).includes(key))
      throw unknownName('--goodput', key, GOODPUT_METRICS);
    const ms = Number(value);
    if (value.trim() === '' || !Number.isFinite(ms) || ms < 0) {
      throw new UsageError(`--goodput: '${pair}': the value must be a number of milliseconds >= 0`);
    }
    slos[key as keyof GoodputSlos] = ms;
  }
  return slos;
}
