// `tokenmeter compare --pairs`: the gateway's records of a mirrored route (src/gateway/exchange/mirrors.ts) read as pairs,
// the primary and its copy joined by pairId, and compared pair by pair. Both sides of a pair answered the same
// request at the same moment and are timed from the same instant (the client's request arriving), so each pair's
// difference (mirror minus primary) is free of what differs between two runs: prompts, arrival pattern, the hour.
// The summary is the distribution of those differences: their median and mean, each with a bootstrap interval
// over pairs (bootstrap.ts's request resampling, one pair being one "request").
import type { RecordObject } from '../../src/measure/record-lines.js';
import { type Interval, percentileInterval, type RequestValues, requestReplicates } from './bootstrap.js';

/** One side of a pair as the comparison reads it. */
export interface PairSide {
  readonly requestId: string;
  readonly upstream: string | null;
  readonly model: string | null;
  readonly outcome: string;
  readonly ttftMs: number | null;
  readonly tpotMs: number | null;
  readonly e2eMs: number | null;
  readonly outputTokens: number | null;
  readonly finishReason: string | null;
  /** What the record says of a failure: the HTTP status, the path sent upstream, the error and the gateway's hint. */
  readonly status: number | null;
  readonly pathSent: string | null;
  readonly error: string | null;
  readonly hint: string | null;
}

/** Mirror copies that failed the same way: their outcome, status and path sent, with the first one's error and hint. */
export interface MirrorFailure {
  readonly outcome: string;
  readonly status: number | null;
  readonly pathSent: string | null;
  readonly count: number;
  readonly error: string | null;
  readonly hint: string | null;
}

export interface MirrorPair {
  readonly pairId: string;
  readonly primary: PairSide;
  readonly mirror: PairSide;
}

export const PAIRED_FIGURES = ['ttftMs', 'tpotMs', 'e2eMs', 'outputTokens'] as const;
export type PairedFigure = (typeof PAIRED_FIGURES)[number];

/** The paired differences of one figure: mirror minus primary, over pairs where both sides have it. */
export interface PairedDifference {
  readonly figure: PairedFigure;
  /** Pairs with the figure on both sides (both answered ok). */
  readonly pairs: number;
  readonly primaryMedian: number | null;
  readonly mirrorMedian: number | null;
  readonly medianDifference: number | null;
  readonly medianInterval: Interval | null;
  readonly meanDifference: number | null;
  readonly meanInterval: Interval | null;
}

export interface PairedComparison {
  readonly pairs: readonly MirrorPair[];
  /** Records with a pairId whose other side is missing (the file was cut, or one side's record was lost). */
  readonly unpaired: number;
  /** Pairs by outcome on each side, e.g. `ok / http_error`. */
  readonly outcomes: Readonly<Record<string, number>>;
  /** Pairs where both sides gave a finish reason, and those where the two agree. */
  readonly finishReasons: { readonly compared: number; readonly same: number };
  /** The mirror copies that did not answer ok, grouped by how they failed, most first. */
  readonly mirrorFailures: readonly MirrorFailure[];
  readonly differences: readonly PairedDifference[];
}

/** Fewer pairs than this give no interval: a percentile interval of a handful of resamples says nothing. */
export const MIN_PAIRS_FOR_INTERVAL = 5;
const SEED = 1;

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function sideOf(record: RecordObject): PairSide {
  return {
    requestId: String(record['requestId']),
    upstream: stringOrNull(record['upstream']),
    model: stringOrNull(record['modelSent']),
    outcome: String(record['outcome']),
    ttftMs: numberOrNull(record['ttftMs']),
    tpotMs: numberOrNull(record['tpotMs']),
    e2eMs: numberOrNull(record['e2eMs']),
    outputTokens: numberOrNull(record['outputTokens']),
    finishReason: stringOrNull(record['finishReason']),
    status: numberOrNull(record['status']),
    pathSent: stringOrNull(record['pathSent']),
    error: stringOrNull(record['error']),
    hint: stringOrNull(record['hint']),
  };
}

/** Why the mirror copies failed, as their records say: grouped by outcome, status and the path they were sent to. */
export function mirrorFailures(pairs: readonly MirrorPair[]): MirrorFailure[] {
  const groups = new Map<string, MirrorFailure>();
  for (const { mirror } of pairs) {
    if (mirror.outcome === 'ok') continue;
    const key = JSON.stringify([mirror.outcome, mirror.status, mirror.pathSent]);
    const group = groups.get(key);
    groups.set(
      key,
      group === undefined
        ? {
            outcome: mirror.outcome,
            status: mirror.status,
            pathSent: mirror.pathSent,
            count: 1,
            error: mirror.error,
            hint: mirror.hint,
          }
        : { ...group, count: group.count + 1 },
    );
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}

/** Joins primary and mirror records by pairId, in the order the primaries appear; records without one are left. */
export function pairRecords(records: readonly RecordObject[]): { pairs: MirrorPair[]; unpaired: number } {
  const sides = new Map<string, { primary?: RecordObject; mirror?: RecordObject }>();
  for (const record of records) {
    const pairId = record['pairId'];
    if (typeof pairId !== 'string') continue;
    const entry = sides.get(pairId) ?? {};
    if (record['role'] === 'mirror') entry.mirror = record;
    else entry.primary = record;
    sides.set(pairId, entry);
  }
  const pairs: MirrorPair[] = [];
  let unpaired = 0;
  for (const [pairId, { primary, mirror }] of sides) {
    if (primary === undefined || mirror === undefined) unpaired++;
    else pairs.push({ pairId, primary: sideOf(primary), mirror: sideOf(mirror) });
  }
  return { pairs, unpaired };
}

function median(sorted: Float64Array): number {
  const h = (sorted.length - 1) / 2;
  const lo = Math.floor(h);
  return (sorted[lo] as number) + ((sorted[Math.ceil(h)] as number) - (sorted[lo] as number)) * (h - lo);
}

/** One value per pair as bootstrap.ts's per-request sample: each pair owns its one difference. */
function perPairSample(differences: readonly number[]): RequestValues {
  const order = differences
    .map((_, i) => i)
    .sort((a, b) => (differences[a] as number) - (differences[b] as number));
  const ones = new Float64Array(differences.length).fill(1);
  return {
    values: Float64Array.from(order, (i) => differences[i] as number),
    owners: Uint32Array.from(order),
    keptPerRequest: ones,
    countPerRequest: ones,
    sumPerRequest: Float64Array.from(differences),
  };
}

function differenceOf(figure: PairedFigure, pairs: readonly MirrorPair[]): PairedDifference {
  const both = pairs.filter(
    (p) =>
      p.primary.outcome === 'ok' &&
      p.mirror.outcome === 'ok' &&
      p.primary[figure] !== null &&
      p.mirror[figure] !== null,
  );
  const primary = Float64Array.from(both, (p) => p.primary[figure] as number).sort();
  const mirror = Float64Array.from(both, (p) => p.mirror[figure] as number).sort();
  const differences = both.map((p) => (p.mirror[figure] as number) - (p.primary[figure] as number));
  if (both.length === 0) {
    return {
      figure,
      pairs: 0,
      primaryMedian: null,
      mirrorMedian: null,
      medianDifference: null,
      medianInterval: null,
      meanDifference: null,
      meanInterval: null,
    };
  }
  const sample = perPairSample(differences);
  const withInterval = both.length >= MIN_PAIRS_FOR_INTERVAL;
  const [medians, means] = withInterval
    ? requestReplicates(
        both.length,
        [
          { sample, statistic: { kind: 'percentile', p: 50 } },
          { sample, statistic: { kind: 'mean' } },
        ],
        SEED,
      )
    : [undefined, undefined];
  return {
    figure,
    pairs: both.length,
    primaryMedian: median(primary),
    mirrorMedian: median(mirror),
    medianDifference: median(sample.values),
    medianInterval: medians === undefined ? null : percentileInterval(medians),
    meanDifference: differences.reduce((a, b) => a + b, 0) / differences.length,
    meanInterval: means === undefined ? null : percentileInterval(means),
  };
}

export function comparePairs(records: readonly RecordObject[]): PairedComparison {
  const { pairs, unpaired } = pairRecords(records);
  const outcomes: Record<string, number> = {};
  let compared = 0;
  let same = 0;
  for (const { primary, mirror } of pairs) {
    const key = `${primary.outcome} / ${mirror.outcome}`;
    outcomes[key] = (outcomes[key] ?? 0) + 1;
    if (primary.finishReason !== null && mirror.finishReason !== null) {
      compared++;
      if (primary.finishReason === mirror.finishReason) same++;
    }
  }
  return {
    pairs,
    unpaired,
    outcomes,
    finishReasons: { compared, same },
    mirrorFailures: mirrorFailures(pairs),
    differences: PAIRED_FIGURES.map((figure) => differenceOf(figure, pairs)),
  };
}
