// The latency figures of one request, as vLLM's serving benchmark defines them, computed from a StreamTiming and
// the request's start time. A pure function, so that the gateway and the load generator compute identically.
//
//   TTFT = first content event - start
//   E2EL = last content event - start          (the usage chunk and `[DONE]` do not count)
//   TPOT = (E2EL - TTFT) / (output tokens - 1) only when output tokens > 1
//   ITL  = gaps between consecutive content events: one sample per event (chunk), not per token

import type { OutputTokenSource, StreamTiming } from './stream-timing.js';

export interface StreamLatencies {
  /** Time to first byte of the body. */
  readonly ttfbMs: number | undefined;
  /** Time to first token (first content event); undefined when no content arrived. */
  readonly ttftMs: number | undefined;
  /** End-to-end latency to the last content event; undefined when no content arrived. */
  readonly e2elMs: number | undefined;
  /** Time from start until the meter was ended (the whole response, trailing events included). */
  readonly totalMs: number | undefined;
  /** Time per output token after the first; undefined unless output tokens > 1. */
  readonly tpotMs: number | undefined;
  readonly outputTokens: number;
  readonly outputTokensSource: OutputTokenSource;
  /** Number of ITL samples: content events - 1. */
  readonly itlCount: number;
  readonly itlMeanMs: number | undefined;
  readonly itlMinMs: number | undefined;
  readonly itlMaxMs: number | undefined;
  /** Every ITL sample, only when the meter kept per-chunk detail. */
  readonly itlSamplesMs: readonly number[] | undefined;
}

export function deriveLatencies(timing: StreamTiming, startMs: number): StreamLatencies {
  const ttftMs = since(timing.firstContentMs, startMs);
  const e2elMs = since(timing.lastContentMs, startMs);
  const outputTokens = timing.outputTokens;
  const tpotMs =
    ttftMs !== undefined && e2elMs !== undefined && outputTokens > 1
      ? (e2elMs - ttftMs) / (outputTokens - 1)
      : undefined;
  const gaps = timing.contentGaps;
  const hasGaps = gaps.count > 0;
  return {
    ttfbMs: since(timing.firstByteMs, startMs),
    ttftMs,
    e2elMs,
    totalMs: since(timing.endMs, startMs),
    tpotMs,
    outputTokens,
    outputTokensSource: timing.outputTokensSource,
    itlCount: gaps.count,
    itlMeanMs: hasGaps ? gaps.sumMs / gaps.count : undefined,
    itlMinMs: hasGaps ? gaps.minMs : undefined,
    itlMaxMs: hasGaps ? gaps.maxMs : undefined,
    itlSamplesMs: timing.chunkDetail === undefined ? undefined : gapsBetween(timing.chunkDetail.atMs),
  };
}

function since(atMs: number | undefined, startMs: number): number | undefined {
  return atMs === undefined ? undefined : atMs - startMs;
}

function gapsBetween(times: readonly number[]): number[] {
  const gaps: number[] = [];
  for (let i = 1; i < times.length; i++) gaps.push((times[i] ?? 0) - (times[i - 1] ?? 0));
  return gaps;
}
