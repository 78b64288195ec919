// The table `top` shows: one row per upstream and model, over the sliding window, summed across every gateway
// given (replicas of one service add up: rates add, histogram buckets add before a quantile is read).

import { NO_MODEL_LABEL } from '../shared/no-model-label.js';
import { type CumulativeBucket, histogramQuantile } from '../shared/prometheus-text.js';
import { parseKey } from './gateway-reading.js';
import type { WindowIncrease } from './sliding-window.js';

export interface TopRow {
  readonly upstream: string;
  readonly model: string;
  readonly requestsPerSecond: number;
  /** Requests finished in the window, every outcome. */
  readonly finished: number;
  /** Share of finished requests whose outcome is `ok`; null when none finished. */
  readonly successRatio: number | null;
  readonly ttftP50Ms: number | null;
  readonly ttftP99Ms: number | null;
  readonly gapP99Ms: number | null;
  readonly outputTokensPerSecond: number;
  /** Finished requests by outcome other than `ok`, most frequent first. */
  readonly errors: ReadonlyArray<{ readonly outcome: string; readonly count: number }>;
}

export const SORT_KEYS = ['rps', 'ttft', 'errors', 'name'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

interface RowSums {
  upstream: string;
  model: string;
  perSecond: number;
  outputPerSecond: number;
  byOutcome: Map<string, number>;
  ttft: Map<number, number>;
  gap: Map<number, number>;
}

/** The table's rows (model traffic), and the requests that named no model (model lists, probes, unrouted paths),
 *  counted under the table rather than shown as rows of their own. */
export interface TopTable {
  readonly rows: TopRow[];
  readonly withoutModel: { readonly finished: number; readonly requestsPerSecond: number };
}

export function topTable(windows: readonly WindowIncrease[], sortKey: SortKey): TopTable {
  const all = topRows(windows, sortKey);
  const withoutModel = all.filter((row) => row.model === NO_MODEL_LABEL);
  return {
    rows: all.filter((row) => row.model !== NO_MODEL_LABEL),
    withoutModel: {
      finished: withoutModel.reduce((sum, row) => sum + row.finished, 0),
      requestsPerSecond: withoutModel.reduce((sum, row) => sum + row.requestsPerSecond, 0),
    },
  };
}

export function topRows(windows: readonly WindowIncrease[], sortKey: SortKey): TopRow[] {
  const sums = new Map<string, RowSums>();
  for (const window of windows) {
    if (window.seconds <= 0) continue;
    for (const [text, increase] of window.increase) {
      const key = parseKey(text);
      const rowKey = `${key.upstream}\u0000${key.model}`;
      let row = sums.get(rowKey);
      if (row === undefined) {
        row = {
          upstream: key.upstream,
          model: key.model,
          perSecond: 0,
          outputPerSecond: 0,
          byOutcome: new Map(),
          ttft: new Map(),
          gap: new Map(),
        };
        sums.set(rowKey, row);
      }
      if (key.kind === 'finished') {
        row.perSecond += increase / window.seconds;
        row.byOutcome.set(key.detail, (row.byOutcome.get(key.detail) ?? 0) + increase);
      } else if (key.kind === 'output_tokens') {
        row.outputPerSecond += increase / window.seconds;
      } else {
        const buckets = key.kind === 'ttft_bucket' ? row.ttft : row.gap;
        const bound = key.detail === '+Inf' ? Number.POSITIVE_INFINITY : Number(key.detail);
        buckets.set(bound, (buckets.get(bound) ?? 0) + increase);
      }
    }
  }
  return sortRows([...sums.values()].map(rowOf), sortKey);
}

function rowOf(sums: RowSums): TopRow {
  let finished = 0;
  for (const count of sums.byOutcome.values()) finished += count;
  const ttft = ascending(sums.ttft);
  const gap = ascending(sums.gap);
  return {
    upstream: sums.upstream,
    model: sums.model,
    requestsPerSecond: sums.perSecond,
    finished,
    successRatio: finished > 0 ? (sums.byOutcome.get('ok') ?? 0) / finished : null,
    ttftP50Ms: quantileMs(0.5, ttft),
    ttftP99Ms: quantileMs(0.99, ttft),
    gapP99Ms: quantileMs(0.99, gap),
    outputTokensPerSecond: sums.outputPerSecond,
    errors: [...sums.byOutcome]
      .filter(([outcome, count]) => outcome !== 'ok' && count > 0)
      .map(([outcome, count]) => ({ outcome, count }))
      .sort((a, b) => b.count - a.count),
  };
}

function ascending(buckets: ReadonlyMap<number, number>): CumulativeBucket[] {
  return [...buckets].map(([le, count]) => ({ le, count })).sort((a, b) => a.le - b.le);
}

/** The quantile in milliseconds, or null when the window holds no observation (PromQL's NaN). */
function quantileMs(q: number, buckets: readonly CumulativeBucket[]): number | null {
  const seconds = histogramQuantile(q, buckets);
  return Number.isNaN(seconds) ? null : seconds * 1000;
}

function errorCount(row: TopRow): number {
  return row.errors.reduce((sum, error) => sum + error.count, 0);
}

function sortRows(rows: TopRow[], sortKey: SortKey): TopRow[] {
  const byName = (a: TopRow, b: TopRow) =>
    a.upstream.localeCompare(b.upstream) || a.model.localeCompare(b.model);
  const descending: Record<Exclude<SortKey, 'name'>, (row: TopRow) => number> = {
    rps: (row) => row.requestsPerSecond,
    ttft: (row) => row.ttftP99Ms ?? -1,
    errors: errorCount,
  };
  if (sortKey === 'name') return rows.sort(byName);
  const value = descending[sortKey];
  return rows.sort((a, b) => value(b) - value(a) || byName(a, b));
}
