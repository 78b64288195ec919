// The figures of one streamed exchange, as vLLM's serving benchmark defines them, computed once per request from
// the meter's StreamTiming and the request's start time. Both records (the gateway's and the load generator's)
// and the doctor are built from this one object, so the same fact is computed by one piece of code. Pure.
//
//   TTFT       = first content event - start    (reasoning included, as vLLM counts it)
//   TTFO       = first answer event - start     (time to first output token: reasoning excluded, as guidellm's
//                                                and AIPerf's TTFO; equal to TTFT for a model that does not reason)
//   reasoning  = TTFO - TTFT                    (how long the model reasoned before it began to answer)
//   last token = last content event - start     (vLLM's E2EL; the usage chunk and `[DONE]` do not count)
//   TPOT       = (last token - TTFT) / (output tokens - 1), only when output tokens > 1
//   ITL        = gaps between consecutive content events: one sample per event (chunk), not per token
//   per-token ITL, only when every content event carried a running usage (continuous_usage_stats): a gap of g
//                before a chunk of k tokens is k gaps of g / k (perTokenGaps, below); its mean per request is
//                (last content event with tokens - first content event) / (tokens after the first chunk)

import type { OutputTokenSource, StreamTiming } from './stream-timing.js';

export interface StreamFigures {
  /** Time to first token (first content event); undefined when no content arrived. */
  readonly ttftMs: number | undefined;
  /** Time to the first answer token (content that is not reasoning); undefined when no answer arrived. */
  readonly ttfoMs: number | undefined;
  /** First answer token - first token: the reasoning before the answer (0 without any); undefined without both. */
  readonly reasoningMs: number | undefined;
  /** Reasoning tokens: the upstream's count when reported, otherwise the built-in estimate of reasoning text. */
  readonly reasoningTokens: number;
  readonly reasoningTokensSource: 'usage' | 'estimate';
  /** Time to the last content event (vLLM's E2EL); undefined when no content arrived. */
  readonly lastTokenMs: number | undefined;
  /** Time from start until the meter was ended (the whole response, trailing events included). */
  readonly endMs: number | undefined;
  /** Time per output token after the first; undefined unless output tokens > 1. */
  readonly tpotMs: number | undefined;
  /** Events carrying generated output: one event is one chunk, whatever number of tokens it holds. */
  readonly contentChunks: number;
  /**
   * Every gap between consecutive content chunks, only when the meter kept per-chunk detail; the first
   * MAX_KEPT_GAPS (stream-meter.ts) of them on a longer stream, and then itlCut says so.
   */
  readonly itlMs: readonly number[] | undefined;
  /** itlMs holds only the first MAX_KEPT_GAPS gaps of the stream (itlCount still counts every gap). */
  readonly itlCut: boolean;
  /** How many gaps fell in each bucket of the gateway's gap histogram (GapSummary.bucketCounts). */
  readonly itlBucketCounts: readonly number[];
  /** Number of gaps: content chunks - 1 (kept even without per-chunk detail). */
  readonly itlCount: number;
  readonly itlMeanMs: number | undefined;
  readonly itlMinMs: number | undefined;
  readonly itlMaxMs: number | undefined;
  /** The upstream's usage when reported, otherwise the estimate (or the caller's tokenizer). */
  readonly outputTokens: number;
  readonly outputTokensSource: OutputTokenSource;
  /**
   * Largest token count of one content chunk: by the running usage when every chunk carried one, otherwise the
   * built-in estimate of its text; undefined without content chunks.
   */
  readonly maxTokensPerChunk: number | undefined;
  /**
   * Whether every content chunk carried a running usage (vLLM's continuous_usage_stats), so that each chunk's
   * tokens are known: the three figures below are defined only then.
   */
  readonly chunkTokensKnown: boolean;
  /** Tokens of each content chunk by the running usage, when known and the meter kept per-chunk detail. */
  readonly chunkTokens: readonly number[] | undefined;
  /** Content chunks of more than one token, when the chunks' tokens are known. */
  readonly multiTokenChunks: number | undefined;
  /** Mean per-token inter-token gap, when the chunks' tokens are known and a token followed the first chunk. */
  readonly perTokenItlMeanMs: number | undefined;
  readonly promptTokens: number | undefined;
  readonly cachedPromptTokens: number | undefined;
  readonly finishReason: string | undefined;
  /** An event outgrew the parser's bound and was skipped. */
  readonly overflowed: boolean;
  /** The generated text, when the meter kept it. */
  readonly text: string | undefined;
}

export interface StreamFigureOptions {
  /**
   * Counts output tokens of the generated text when the upstream reported no usage (the load generator's
   * tokenizer, as vLLM re-tokenizes); the figures then say `tokenizer`. Needs the meter's keepText.
   * Without it the meter's built-in estimate is used.
   */
  readonly countTokens?: (text: string) => number;
}

export function streamFigures(
  timing: StreamTiming,
  startMs: number,
  options: StreamFigureOptions = {},
): StreamFigures {
  const ttftMs = since(timing.firstContentMs, startMs);
  const ttfoMs = since(timing.firstAnswerMs, startMs);
  const lastTokenMs = since(timing.lastContentMs, startMs);
  let outputTokens = timing.outputTokens;
  let outputTokensSource = timing.outputTokensSource;
  if (timing.usageOutputTokens === undefined && options.countTokens !== undefined) {
    const text = timing.text ?? '';
    outputTokens = text === '' ? 0 : options.countTokens(text);
    outputTokensSource = 'tokenizer';
  }
  const tpotMs =
    ttftMs !== undefined && lastTokenMs !== undefined && outputTokens > 1
      ? (lastTokenMs - ttftMs) / (outputTokens - 1)
      : undefined;
  const gaps = timing.contentGaps;
  const hasGaps = gaps.count > 0;
  const kept = timing.keptGaps;
  const usageReasoning = timing.usageReasoningTokens;
  const chunkUsage = timing.chunkUsage;
  const chunkTokensKnown = timing.contentEvents > 0 && chunkUsage.chunks === timing.contentEvents;
  const tokensAfterFirst = chunkUsage.lastCompletionTokens - chunkUsage.firstChunkTokens;
  const perTokenItlMeanMs =
    chunkTokensKnown && tokensAfterFirst > 0 && timing.firstContentMs !== undefined
      ? (chunkUsage.lastTokensAtMs - timing.firstContentMs) / tokensAfterFirst
      : undefined;
  let maxTokensPerChunk: number | undefined;
  if (timing.contentEvents > 0) {
    maxTokensPerChunk = chunkTokensKnown ? chunkUsage.maxChunkTokens : timing.maxChunkEstimatedTokens;
  }
  return {
    ttftMs,
    ttfoMs,
    reasoningMs: ttftMs === undefined || ttfoMs === undefined ? undefined : ttfoMs - ttftMs,
    reasoningTokens: usageReasoning ?? timing.estimatedReasoningTokens,
    reasoningTokensSource: usageReasoning === undefined ? 'estimate' : 'usage',
    lastTokenMs,
    endMs: since(timing.endMs, startMs),
    tpotMs,
    contentChunks: timing.contentEvents,
    itlMs: kept?.gapsMs,
    itlCut: kept?.cut ?? false,
    itlBucketCounts: gaps.bucketCounts,
    itlCount: gaps.count,
    itlMeanMs: hasGaps ? gaps.sumMs / gaps.count : undefined,
    itlMinMs: hasGaps ? gaps.minMs : undefined,
    itlMaxMs: hasGaps ? gaps.maxMs : undefined,
    outputTokens,
    outputTokensSource,
    maxTokensPerChunk,
    chunkTokensKnown,
    chunkTokens: chunkTokensKnown ? chunkUsage.keptChunkTokens : undefined,
    multiTokenChunks: chunkTokensKnown ? chunkUsage.multiTokenChunks : undefined,
    perTokenItlMeanMs,
    promptTokens: timing.promptTokens,
    cachedPromptTokens: timing.cachedPromptTokens,
    finishReason: timing.finishReason,
    overflowed: timing.overflowed,
    text: timing.text,
  };
}

function since(atMs: number | undefined, startMs: number): number | undefined {
  return atMs === undefined ? undefined : atMs - startMs;
}

// Inter-token gaps per token, where the server says how many tokens each chunk carries (vLLM's
// `stream_options.continuous_usage_stats`: a running usage on every chunk). vLLM's ITL is one sample per chunk,
// so a chunk of five speculative tokens after 50 ms reads as one 50 ms gap; per token it is five gaps of 10 ms.
//
//   a gap of g ms before a chunk of k tokens counts as k gaps of g / k ms;
//   a chunk that carries no token (its usage did not grow) adds no gap: its time joins the next chunk's gap;
//   the first chunk's tokens have no gap before them (they are TTFT's), nor do tokens counted after the last chunk.
//
// So over one stream the gaps add up to (last chunk that carried tokens - first chunk) and number the tokens after
// the first chunk: their mean is that time over those tokens (AIPerf's ITL with --per-chunk-usage).

/**
 * One gap per token: `gapsMs[i]` is the gap before chunk i + 1, `chunkTokens[i]` the tokens of chunk i (so one
 * entry longer than the gaps). Appends to `into` and returns it, so a run's samples pool without copies.
 */
export function perTokenGaps(
  gapsMs: readonly number[],
  chunkTokens: readonly number[],
  into: number[] = [],
): number[] {
  let pendingMs = 0;
  const n = Math.min(gapsMs.length, chunkTokens.length - 1);
  for (let i = 0; i < n; i++) {
    pendingMs += gapsMs[i] as number;
    const tokens = chunkTokens[i + 1] as number;
    if (tokens === 0) continue;
    const each = pendingMs / tokens;
    for (let t = 0; t < tokens; t++) into.push(each);
    pendingMs = 0;
  }
  return into;
}
