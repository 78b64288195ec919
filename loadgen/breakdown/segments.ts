// The segments a request's time is split into, named once here: the breakdown (request-breakdown.ts), the
// "Where TTFT goes" section, the result JSON, the HTML charts and the TTFT verdict all use these names and labels.
// How each is computed, and why some are only approximate: docs/tracing.md "Where the time goes".

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
