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
