// One request's time split into the segments of segments.ts, from what was measured of it: the client's record,
// the gateway's record of the same request (joined by x-request-id) and the server's segments from its span
// (on either record). Each segment is computed from one formula (docs/tracing.md "Where the time goes"); one
// whose inputs are missing is null ("unknown"), never zero, and the time it would cover stays unattributed.
//
// The formulas telescope: with every segment known, their sum is the client's queue + E2E less the part of the
// server's TTFT its queue and prefill do not explain, so `unattributedMs` is exactly that part (plus rounding).
// It is kept as measured: a negative one, or a negative segment, is listed in `negative`, never clamped.

import type { GatewaySide } from '../gateway-timings.js';
import type { RequestRecord } from '../record.js';
import { SEGMENT_NAMES, type SegmentName, TTFT_SEGMENTS } from './segments.js';

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
