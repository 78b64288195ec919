// Stream figures as vLLM defines them (TTFT, last token, TPOT, ITL) against hand-computed values.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { streamFigures } from '../../src/measure/stream-figures.js';
import { NO_CHUNK_USAGE, type StreamTiming } from '../../src/measure/stream-timing.js';

// Start 1000; first byte 1240; content events at 1250, 1260, 1275, 1300; 10 output tokens from usage; end 1310.
const TIMING: StreamTiming = {
  protocol: 'openai-chat',
  firstByteMs: 1240,
  firstContentMs: 1250,
  firstAnswerMs: 1250,
  lastContentMs: 1300,
  endMs: 1310,
  contentEvents: 4,
  contentGaps: { count: 3, sumMs: 50, minMs: 10, maxMs: 25, bucketCounts: [] },
  keptGaps: { gapsMs: [10, 15, 25], cut: false },
  maxChunkEstimatedTokens: 3,
  chunkUsage: NO_CHUNK_USAGE,
  contentChars: 12,
  estimatedOutputTokens: 9,
  promptTokens: 20,
  cachedPromptTokens: undefined,
  usageOutputTokens: 10,
  usageReasoningTokens: undefined,
  estimatedReasoningTokens: 0,
  outputTokens: 10,
  outputTokensSource: 'usage',
  finishReason: 'stop',
  toolCalls: 0,
  responseId: undefined,
  sawDone: true,
  errorMessage: undefined,
  overflowed: false,
  endedMidEvent: false,
  unparseableEvents: 0,
  implausibleUsage: undefined,
  events: 6,
  bytes: 900,
  text: undefined,
};

test('TTFT, last token, TPOT and ITL as vLLM defines them, against hand-computed values', () => {
  const latencies = streamFigures(TIMING, 1000);
  assert.equal(latencies.ttftMs, 250);
  assert.equal(latencies.lastTokenMs, 300);
  assert.equal(latencies.endMs, 310);
  // (300 - 250) / (10 - 1)
  assert.equal(latencies.tpotMs, 50 / 9);
  assert.equal(latencies.outputTokens, 10);
  assert.equal(latencies.outputTokensSource, 'usage');
  assert.equal(latencies.itlCount, 3);
  assert.equal(latencies.itlMeanMs, 50 / 3);
  assert.equal(latencies.itlMinMs, 10);
  assert.equal(latencies.itlMaxMs, 25);
  assert.deepEqual(latencies.itlMs, [10, 15, 25]);
  assert.equal(latencies.itlCut, false);
  assert.equal(latencies.maxTokensPerChunk, 3);
});

test('TPOT needs more than one output token', () => {
  for (const outputTokens of [0, 1]) {
    assert.equal(streamFigures({ ...TIMING, outputTokens }, 1000).tpotMs, undefined);
  }
  assert.equal(streamFigures({ ...TIMING, outputTokens: 2 }, 1000).tpotMs, 50);
});

test('a stream without content has no TTFT, last token, TPOT or ITL', () => {
  const latencies = streamFigures(
    {
      ...TIMING,
      firstContentMs: undefined,
      lastContentMs: undefined,
      contentEvents: 0,
      contentGaps: { count: 0, sumMs: 0, minMs: 0, maxMs: 0, bucketCounts: [] },
      keptGaps: undefined,
      maxChunkEstimatedTokens: 0,
    },
    1000,
  );
  assert.equal(latencies.ttftMs, undefined);
  assert.equal(latencies.lastTokenMs, undefined);
  assert.equal(latencies.tpotMs, undefined);
  assert.equal(latencies.itlCount, 0);
  assert.equal(latencies.itlMeanMs, undefined);
  assert.equal(latencies.itlMs, undefined);
  assert.equal(latencies.maxTokensPerChunk, undefined);
});

test('a single content event gives TTFT = last token and no ITL sample', () => {
  const latencies = streamFigures(
    {
      ...TIMING,
      lastContentMs: 1250,
      contentEvents: 1,
      contentGaps: { count: 0, sumMs: 0, minMs: 0, maxMs: 0, bucketCounts: [] },
      keptGaps: { gapsMs: [], cut: false },
      maxChunkEstimatedTokens: 3,
      outputTokens: 3,
    },
    1000,
  );
  assert.equal(latencies.ttftMs, 250);
  assert.equal(latencies.lastTokenMs, 250);
  assert.equal(latencies.tpotMs, 0);
  assert.deepEqual(latencies.itlMs, []);
});

test('with a token counter and no usage, output tokens come from it and TPOT follows', () => {
  const figures = streamFigures(
    { ...TIMING, usageOutputTokens: undefined, outputTokensSource: 'estimate', text: 'a b c d e f' },
    1000,
    { countTokens: (text) => text.split(' ').length },
  );
  assert.equal(figures.outputTokens, 6);
  assert.equal(figures.outputTokensSource, 'tokenizer');
  assert.equal(figures.tpotMs, 50 / 5);
  assert.equal(figures.contentChunks, 4);
  assert.equal(figures.maxTokensPerChunk, 3);
  assert.equal(figures.promptTokens, 20);
  assert.equal(figures.finishReason, 'stop');
});
