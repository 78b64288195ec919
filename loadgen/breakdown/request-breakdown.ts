// Where a request's time went, computed: the segments its time is split into (named once here: the "Where TTFT
// goes" section, the result JSON, the HTML charts and the TTFT verdict all use these names and labels), one
// request's split from what was measured of it, and a run's splits summed up. The feature that runs it, saves it
// and shows it is breakdown-feature.ts. How each segment is computed, and why some are only approximate:
// docs/tracing.md "Where the time goes".
//
// One request's split comes from the client's record, the gateway's record of the same request (joined by
// x-request-id) and the server's segments from its span (on either record). Each segment is computed from one
// formula; one whose inputs are missing is null ("unknown"), never zero, and the time it would cover stays
// unattributed. The formulas telescope: with every segment known, their sum is the client's queue + E2E less the
// part of the server's TTFT its queue and prefill do not explain, so `unattributedMs` is exactly that part (plus
// rounding). It is kept as measured: a negative one, or a negative segment, is listed in `negative`, never clamped.
//
// The summary: p50 and p99 of each segment over the requests where it is known, the residual of the complete
// splits, and, for the slowest 1% of TTFT, the segment that took most of it.

import type { GatewaySide } from '../gateway-timings.js';
import { median, percentile } from '../metrics/numpy-stats.js';
import type { RequestRecord } from '../record.js';

export const SEGMENT_NAMES = [
  'clientQueue',
  'clientGateway',
  'gateway',
  'gatewayServer',
  'serverQueue',
  'prefill',
  'decode',
  'delivery',
] as const;

export type SegmentName = (typeof SEGMENT_NAMES)[number];

export interface SegmentDefinition {
  /** Shown in reports and verdicts. */
  readonly label: string;
  /**
   * False when the figure mixes in something it cannot separate: both network legs (no synchronized clocks), or
   * the stream's delivery with the gateway's relay of each chunk.
   */
  readonly exact: boolean;
  /** Part of the client's TTFT (before the first token), rather than before the send or after the first token. */
  readonly inTtft: boolean;
}

export const SEGMENTS: Readonly<Record<SegmentName, SegmentDefinition>> = Object.freeze({
  clientQueue: { label: 'client queue', exact: true, inTtft: false },
  clientGateway: { label: 'client<->gateway network', exact: false, inTtft: true },
  gateway: { label: 'gateway', exact: true, inTtft: true },
  gatewayServer: { label: 'gateway<->server network', exact: false, inTtft: true },
  serverQueue: { label: 'server queue', exact: true, inTtft: true },
  prefill: { label: 'prefill', exact: true, inTtft: true },
  decode: { label: 'decode', exact: true, inTtft: false },
  delivery: { label: 'delivery', exact: false, inTtft: false },
});

export const TTFT_SEGMENTS: readonly SegmentName[] = SEGMENT_NAMES.filter((name) => SEGMENTS[name].inTtft);

/** The label with "~" when the segment is approximate, as reports print it. */
export function segmentLabel(name: SegmentName): string {
  const segment = SEGMENTS[name];
  return segment.exact ? segment.label : `~${segment.label}`;
}

export interface RequestBreakdown {
  readonly index: number;
  /** When it was sent, ms after the run's start (for charts over time). */
  readonly sentAtMs: number;
  readonly promptTokens: number;
  /** The client's TTFT and E2E (last token), from its send. */
  readonly ttftMs: number;
  readonly e2eMs: number;
  /** Client queue + E2E: what the segments split. */
  readonly totalMs: number;
  /** Milliseconds per segment; null = unknown (its inputs were not measured). */
  readonly segments: Readonly<Record<SegmentName, number | null>>;
  /** totalMs less the known segments: the unknown segments' time, and with all known the split's residual. */
  readonly unattributedMs: number;
  /** The same within the client's TTFT. */
  readonly ttftUnattributedMs: number;
  /** True when no segment is unknown. */
  readonly complete: boolean;
  /** Segments (and `unattributed`) that came out below zero, kept as measured. */
  readonly negative: readonly (SegmentName | 'unattributed')[];
}

const round3 = (value: number): number => Math.round(value * 1000) / 1000;

/**
 * Each figure is rounded to the microsecond, so a sum of up to ten of them is off by up to this much: a residual
 * within it is rounding, not a negative to flag.
 */
export const ROUNDING_TOLERANCE_MS = 0.01;

function sumKnown(values: readonly (number | null)[]): number {
  return values.reduce<number>((total, value) => total + (value ?? 0), 0);
}

/** The split of one completed request, or undefined when it has no TTFT or last token to split. */
export function breakDownRequest(client: RequestRecord, gateway?: GatewaySide): RequestBreakdown | undefined {
  if (client.outcome !== 'ok' || client.sentAtMs === null) return undefined;
  if (client.ttftMs === null || client.lastTokenMs === null) return undefined;
  // The gateway's overhead before the first token is its first term, arrival to dispatch upstream
  // (`upstreamRequestMs`); the rest, its relay of each chunk, happens after and falls in delivery.
  const gatewayTtft = gateway?.outcome === 'ok' ? gateway.ttftMs : null;
  const dispatch = gatewayTtft === null ? null : (gateway?.upstreamRequestMs ?? null);
  const server = client.server ?? gateway?.server;
  const serverTtft = server?.ttftMs ?? null;
  const decode = server?.decodeMs ?? null;
  const segments: Record<SegmentName, number | null> = {
    clientQueue: client.clientQueueMs,
    // Both legs (request out, first token back) and the client's own reading: one way is not measurable
    // without synchronized clocks.
    clientGateway: gatewayTtft === null ? null : client.ttftMs - gatewayTtft,
    gateway: dispatch,
    gatewayServer:
      gatewayTtft === null || dispatch === null || serverTtft === null
        ? null
        : gatewayTtft - dispatch - serverTtft,
    serverQueue: server?.queueMs ?? null,
    prefill: server?.prefillMs ?? null,
    decode,
    delivery: decode === null ? null : client.lastTokenMs - client.ttftMs - decode,
  };
  for (const name of SEGMENT_NAMES) {
    const value = segments[name];
    if (value !== null) segments[name] = round3(value);
  }
  return assembleSplit(
    {
      index: client.index,
      sentAtMs: client.sentAtMs,
      promptTokens: client.promptTokens,
      ttftMs: client.ttftMs,
      e2eMs: client.lastTokenMs,
    },
    segments,
  );
}

/** What a split is computed from besides its segments (also what the result JSON keeps of it). */
export type SplitBasis = Pick<RequestBreakdown, 'index' | 'sentAtMs' | 'promptTokens' | 'ttftMs' | 'e2eMs'>;

/** A split from its basis and segments: the totals, the unattributed time, what is unknown or negative. */
export function assembleSplit(
  basis: SplitBasis,
  segments: Readonly<Record<SegmentName, number | null>>,
): RequestBreakdown {
  const totalMs = round3((segments.clientQueue ?? 0) + basis.e2eMs);
  const unattributedMs = round3(totalMs - sumKnown(Object.values(segments)));
  const ttftUnattributedMs = round3(basis.ttftMs - sumKnown(TTFT_SEGMENTS.map((name) => segments[name])));
  const negative: (SegmentName | 'unattributed')[] = SEGMENT_NAMES.filter(
    (name) => (segments[name] ?? 0) < 0,
  );
  if (unattributedMs < -ROUNDING_TOLERANCE_MS) negative.push('unattributed');
  return {
    ...basis,
    totalMs,
    segments,
    unattributedMs,
    ttftUnattributedMs,
    complete: SEGMENT_NAMES.every((name) => segments[name] !== null),
    negative,
  };
}

/** Every completed request's split, joining the gateway's records of the run by their x-request-id index. */
export function breakDownRun(
  records: readonly RequestRecord[],
  gatewayByIndex: ReadonlyMap<number, GatewaySide>,
): RequestBreakdown[] {
  const split: RequestBreakdown[] = [];
  for (const record of records) {
    const one = breakDownRequest(record, gatewayByIndex.get(record.index));
    if (one !== undefined) split.push(one);
  }
  return split;
}

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

/** "1 request", "3 requests". */
export function requests(count: number): string {
  return `${count} request${count === 1 ? '' : 's'}`;
}

/** How a part of TTFT is named in reports and verdicts. */
export function partLabel(part: TtftPart): string {
  return part === 'unattributed' ? 'time no measured segment covers' : segmentLabel(part);
}

/** True when at least one segment of TTFT past the client's own queue was measured: there is something to blame. */
export function hasTtftSegments(summary: BreakdownSummary): boolean {
  return TTFT_SEGMENTS.some((name) => summary.segments[name] !== null);
}
