// One run's bootstrap replicates for every row of a comparison, or the reason a row has none: records missing,
// too few requests, or a percentile further in the tail than the run has values for (the bootstrap of a p99
// from 100 values is the resampled maximum, an interval far narrower than the truth; better none than that).

import { hashSeed } from '../../src/shared/random.js';
import { withoutPlannedCancels } from '../record.js';
import {
  type Interval,
  percentileInterval,
  type RequestFigure,
  type RequestValues,
  rateReplicates,
  requestReplicates,
} from './bootstrap.js';
import type { RowSpec } from './compare-rows.js';
import {
  requestsWithValues,
  requestValues,
  type SampleName,
  valueCount,
  windowSums,
} from './request-samples.js';
import type { RunRecords } from './run-records.js';

/** Fewer requests than this, or fewer values beyond a percentile than this, and a row gets no interval. */
export const MIN_VALUES = 10;

/** What a run contributes to a row's decision. */
export type Spread =
  | { readonly replicates: Float64Array; readonly interval: Interval }
  | { readonly replicates: null; readonly noInterval: string };

function none(noInterval: string): Spread {
  return { replicates: null, noInterval };
}

/** Null when the sample can carry the statistic, else why not. */
function tooFew(
  sample: RequestValues,
  spec: Extract<RowSpec['interval'], { kind: 'requests' }>,
): string | null {
  const requests = requestsWithValues(sample);
  if (requests < MIN_VALUES) return `only ${requests} requests with a value`;
  const { statistic } = spec;
  if (statistic.kind !== 'percentile') return null;
  // Percent beyond the percentile, rounded so that 100 - 99.9 is 0.1.
  const tailPercent = Math.round(Math.min(statistic.p, 100 - statistic.p) * 1e6) / 1e6;
  const needed = Math.ceil((MIN_VALUES * 100) / tailPercent);
  return valueCount(sample) < needed ? `p${statistic.p} needs ${needed} values` : null;
}

function scaled(replicates: Float64Array, scale: number): Float64Array {
  return scale === 1 ? replicates : replicates.map((value) => value * scale);
}

/**
 * One spread per row (null for rows with nothing to decide). `runIndex` seeds the resampling, so two runs never
 * share their draws and the same files always give the same intervals.
 */
export function runSpreads(
  rows: readonly RowSpec[],
  records: RunRecords,
  durationS: number | null,
  runIndex: number,
): Array<Spread | null> {
  const spreads: Array<Spread | null> = rows.map(() => null);
  // The records the run's figures were computed on: its planned cancellations (--request-cancellation-rate) left out.
  const list = records.records === null ? null : withoutPlannedCancels(records.records);
  const samples = new Map<SampleName, RequestValues>();
  const figures: RequestFigure[] = [];
  const figureRows: number[] = [];
  rows.forEach((row, i) => {
    const spec = row.interval;
    if (spec === null) return;
    if (list === null) spreads[i] = none('records missing');
    else if (spec.kind === 'none') spreads[i] = none(spec.reason);
    else if (list.length < MIN_VALUES) spreads[i] = none(`only ${list.length} requests`);
    else if (spec.kind === 'rate') {
      if (durationS === null || durationS <= 0) spreads[i] = none('no duration');
      else if (list.every((r) => r.sentAtMs === null)) spreads[i] = none('no start times saved');
      else {
        const sums = windowSums(list, durationS * 1000, spec.amount);
        const replicates = rateReplicates(sums, durationS, hashSeed('compare rate', runIndex, spec.amount));
        spreads[i] = { replicates, interval: percentileInterval(replicates) };
      }
    } else {
      let sample = samples.get(spec.sample);
      if (sample === undefined) {
        sample = requestValues(list, spec.sample);
        samples.set(spec.sample, sample);
      }
      const reason = tooFew(sample, spec);
      if (reason !== null) spreads[i] = none(reason);
      else {
        figures.push({ sample, statistic: spec.statistic });
        figureRows.push(i);
      }
    }
  });
  if (list !== null && figures.length > 0) {
    const replicates = requestReplicates(list.length, figures, hashSeed('compare requests', runIndex));
    figureRows.forEach((row, f) => {
      const spec = rows[row]?.interval;
      const scale = spec?.kind === 'requests' ? spec.scale : 1;
      const values = scaled(replicates[f] as Float64Array, scale);
      spreads[row] = { replicates: values, interval: percentileInterval(values) };
    });
  }
  return spreads;
}
