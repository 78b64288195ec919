// Test helper: a small, hand-computed run. Times in ms from the run start.
//   #0 ok   sent 0     TTFT 100, gaps 50 50 100, E2EL 300, 4 tokens in 4 chunks, prompt 10  -> TPOT 200/3
//   #1 ok   sent 500   TTFT 200, gap 100,       E2EL 300, 3 tokens in 2 chunks, prompt 20  -> TPOT 50
//   #2 ok   sent 1200  TTFT 300, no gaps,       E2EL 300, 1 token,             prompt 30  -> no TPOT
//   #3 404  sent 1300
// Chunk arrivals: 100 150 200 300 700 800 (second 0) and 1500 (second 1): peak 6 chunks/s; no two requests are
// in flight at once ([0, 300), [500, 800), [1200, 1500)): peak concurrency 1 (vLLM 009e6d4a's sweep; the older
// per-second count said 2). Duration 2000 ms.

import type { RequestRecord } from '../../../loadgen/record.js';

export function record(overrides: Partial<RequestRecord> & Pick<RequestRecord, 'index'>): RequestRecord {
  return {
    intendedOffsetMs: 0,
    sentAtMs: 0,
    clientQueueMs: 0,
    ttfbMs: null,
    ttftMs: null,
    itlMs: [],
    lastTokenMs: null,
    outputTokens: 0,
    outputTokensSource: 'usage',
    promptTokens: 0,
    contentChunks: 0,
    outcome: 'ok',
    status: 200,
    error: null,
    errorBodyExcerpt: null,
    generatedTextLength: 0,
    ...overrides,
  };
}

export const RUN_DURATION_MS = 2000;

export const RECORDS: readonly RequestRecord[] = [
  record({
    index: 0,
    intendedOffsetMs: 0,
    sentAtMs: 0,
    ttfbMs: 90,
    ttftMs: 100,
    itlMs: [50, 50, 100],
    lastTokenMs: 300,
    outputTokens: 4,
    promptTokens: 10,
    contentChunks: 4,
  }),
  record({
    index: 1,
    intendedOffsetMs: 498,
    sentAtMs: 500,
    ttfbMs: 150,
    ttftMs: 200,
    itlMs: [100],
    lastTokenMs: 300,
    outputTokens: 3,
    outputTokensSource: 'tokenizer',
    promptTokens: 20,
    contentChunks: 2,
  }),
  record({
    index: 2,
    intendedOffsetMs: 1200,
    sentAtMs: 1200,
    ttfbMs: 250,
    ttftMs: 300,
    lastTokenMs: 300,
    outputTokens: 1,
    promptTokens: 30,
    contentChunks: 1,
  }),
  record({
    index: 3,
    intendedOffsetMs: 1290,
    sentAtMs: 1300,
    clientQueueMs: 4,
    ttfbMs: 5,
    outcome: 'http_error',
    status: 404,
    error: '404 Not Found',
    errorBodyExcerpt: '{"error": {"message": "no route /v1/v1/completions"}}',
    promptTokens: 40,
  }),
];
