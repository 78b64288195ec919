// A run's breakdown summed up: p50 and p99 of each segment over the requests where it is known, the residual of
// the complete splits, and, for the slowest 1% of TTFT, the segment that took most of it. Read by the "Where
// TTFT goes" section, the result JSON and the TTFT verdict.

import { median, percentile } from '../metrics/numpy-stats.js';
import type { RequestBreakdown } from './request-breakdown.js';
import { SEGMENT_NAMES, type SegmentName, TTFT_SEGMENTS } from './segments.js';

export interface SegmentStats {
  /** Requests where the segment is known. */
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** What took most of a slow request's TTFT: a segment, or time no known segment covers. */
export type TtftPart = SegmentName | 'unattributed';

export interface SlowestTtft {
  /** The slowest 1% of requests by TTFT (at least one), from this TTFT up. */
  readonly count: number;
  readonly fromTtftMs: number;
  readonly medianTtftMs: number;
  /** The part that took most of the TTFT in most of them. */
  readonly dominant: TtftPart;
  /** In how many of them it did. */
  readonly dominantIn: number;
  /** Its median in the slow requests, and over every request where it is known. */
  readonly dominantMedianMs: number;
  readonly dominantMedianAllMs: number;
}

/** A run's breakdown: each completed request's split, and their summary. */
export interface RunBreakdown {
  readonly requests: readonly RequestBreakdown[];
  readonly summary: BreakdownSummary;
}

export interface BreakdownSummary {
  /** Completed requests split; of them, with every segment known. */
  readonly requests: number;
  readonly complete: number;
  readonly segments: Readonly<Record<SegmentName, SegmentStats | null>>;
  /** Over every split: client queue + E2E less its known segments (the unknown segments' time, or the residual). */
  readonly unattributed: SegmentStats | null;
  /** Over the complete splits: what the segments leave unexplained of client queue + E2E (null: none complete). */
  readonly residual: { readonly minMs: number; readonly maxMs: number } | null;
  /** Requests with a segment or residual below zero (kept as measured). */
  readonly negative: number;
  readonly slowest: SlowestTtft | null;
}

/** The fraction of requests called "the slowest": 1%, as vLLM's p99. */
const SLOWEST_SHARE = 0.01;

function stats(values: readonly number[]): SegmentStats | null {
  if (values.length === 0) return null;
  return { count: values.length, p50Ms: median(values), p99Ms: percentile(values, 99) };
}

function partValue(split: RequestBreakdown, part: TtftPart): number | null {
  return part === 'unattributed' ? split.ttftUnattributedMs : split.segments[part];
}

function dominantPart(split: RequestBreakdown): TtftPart {
  let best: TtftPart = 'unattributed';
  for (const name of TTFT_SEGMENTS) {
    const value = split.segments[name];
    if (value !== null && value > (partValue(split, best) ?? 0)) best = name;
  }
  return best;
}

function slowest(splits: readonly RequestBreakdown[]): SlowestTtft | null {
  if (splits.length === 0) return null;
  const byTtft = [...splits].sort((a, b) => b.ttftMs - a.ttftMs);
  const slow = byTtft.slice(0, Math.max(1, Math.ceil(splits.length * SLOWEST_SHARE)));
  const votes = new Map<TtftPart, number>();
  for (const split of slow) {
    const part = dominantPart(split);
    votes.set(part, (votes.get(part) ?? 0) + 1);
  }
  const [dominant, dominantIn] = [...votes].sort((a, b) => b[1] - a[1])[0] as [TtftPart, number];
  const known = (list: readonly RequestBreakdown[]): number[] =>
    list.map((split) => partValue(split, dominant)).filter((value): value is number => value !== null);
  return {
    count: slow.length,
    fromTtftMs: (slow.at(-1) as RequestBreakdown).ttftMs,
    medianTtftMs: median(slow.map((split) => split.ttftMs)),
    dominant,
    dominantIn,
    dominantMedianMs: median(known(slow)),
    dominantMedianAllMs: median(known(splits)),
  };
}

export function summarizeBreakdown(splits: readonly RequestBreakdown[]): BreakdownSummary {
  const segments = {} as Record<SegmentName, SegmentStats | null>;
  for (const name of SEGMENT_NAMES) {
    segments[name] = stats(
      splits.map((split) => split.segments[name]).filter((value): value is number => value !== null),
    );
  }
  const residuals = splits.filter((split) => split.complete).map((split) => split.unattributedMs);
  return {
    requests: splits.length,
    complete: residuals.length,
    segments,
    unattributed: stats(splits.map((split) => split.unattributedMs)),
    residual:
      residuals.length === 0 ? null : { minMs: Math.min(...residuals), maxMs: Math.max(...residuals) },
    negative: splits.filter((split) => split.negative.length > 0).length,
    slowest: slowest(splits),
  };
}

/** True when at least one segment of TTFT past the client's own queue was measured: there is something to blame. */
export function hasTtftSegments(summary: BreakdownSummary): boolean {
  return TTFT_SEGMENTS.some((name) => summary.segments[name] !== null);
}
