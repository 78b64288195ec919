// StreamMeter on a recorded chat stream: role-only deltas, the usage chunk and [DONE] are never content.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { streamFigures } from '../../src/measure/stream-figures.js';
import { MAX_KEPT_GAPS, StreamMeter } from '../../src/measure/stream-meter.js';
import { NO_CHUNK_USAGE } from '../../src/measure/stream-timing.js';
import { openAiChatClassifier } from '../../src/protocols/openai-chat/stream-classifier.js';
import { PER_TOKEN_BUCKETS_S } from '../../src/shared/latency-buckets.js';
import { estimateTokens } from '../../src/shared/token-estimate.js';
import { bytes } from '../sse/collect-events.js';
import {
  CHAT_STREAM_BYTES,
  CHAT_STREAM_PARTS,
  CHAT_TEXT,
  USAGE_EVENT_INDEX,
} from '../sse/fixtures/recorded-chat-stream.js';
import { chatChunk, delta } from './classify.js';

// Feeds `parts` one per chunk, part i arriving at 100 + 10 * i ms; ends at 100 + 10 * parts.length.
function meterParts(parts: readonly string[], keepChunkDetail = false): StreamMeter {
  const meter = new StreamMeter({ classifier: openAiChatClassifier, keepChunkDetail, keepText: true });
  for (const [i, part] of parts.entries()) meter.onBytes(bytes(part), 100 + 10 * i);
  meter.end(100 + 10 * parts.length);
  return meter;
}

const sse = (data: string): string => `data: ${data}\n\n`;

// Bucket counts as GapSummary holds them, from {upper bound in seconds: count}; every bound named must be one of
// the gateway's gap histogram's.
function countsAt(byBound: Readonly<Record<number, number>>): number[] {
  const counts = new Array<number>(PER_TOKEN_BUCKETS_S.length + 1).fill(0);
  for (const [bound, count] of Object.entries(byBound)) {
    const index = PER_TOKEN_BUCKETS_S.indexOf(Number(bound));
    assert.notEqual(index, -1, `${bound} is not a bucket bound`);
    counts[index] = count;
  }
  return counts;
}

test('the recorded chat stream gives the hand-checked record', () => {
  // Parts: ping@100, role-only@110, Hello@120, 世界@130, ping@140, 👍@150, Done@160, finish@170, usage@180, [DONE]@190.
  const timing = meterParts(CHAT_STREAM_PARTS, true).result();
  assert.deepEqual(timing, {
    protocol: 'openai-chat',
    firstByteMs: 100,
    firstContentMs: 120,
    firstAnswerMs: 120,
    lastContentMs: 160,
    endMs: 200,
    contentEvents: 4,
    contentGaps: { count: 3, sumMs: 40, minMs: 10, maxMs: 20, bucketCounts: countsAt({ 0.01: 2, 0.02: 1 }) },
    keptGaps: { gapsMs: [10, 20, 10], cut: false },
    // Per event: Hello 1, 世界 3 (two ideographs and the space), 👍 3, Done 1.
    maxChunkEstimatedTokens: 3,
    chunkUsage: NO_CHUNK_USAGE,
    contentChars: CHAT_TEXT.length,
    estimatedOutputTokens: estimateTokens(CHAT_TEXT),
    promptTokens: 12,
    cachedPromptTokens: undefined,
    usageOutputTokens: 7,
    usageReasoningTokens: undefined,
    estimatedReasoningTokens: 0,
    outputTokens: 7,
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
    events: 8,
    bytes: CHAT_STREAM_BYTES.length,
    text: CHAT_TEXT,
  });
});

test('a role-only first delta, however early, is not the first token', () => {
  const meter = new StreamMeter({ classifier: openAiChatClassifier });
  meter.onBytes(bytes(sse(chatChunk([delta({ role: 'assistant', content: '' })]))), 5);
  meter.onBytes(bytes(sse(chatChunk([delta({ content: '' })]))), 6);
  assert.equal(meter.result().firstContentMs, undefined);
  meter.onBytes(bytes(sse(chatChunk([delta({ content: 'Hi' })]))), 300);
  assert.equal(meter.result().firstContentMs, 300);
  assert.equal(meter.result().contentEvents, 1);
});

test('the usage chunk and [DONE] never count as content or move the last content time', () => {
  // The usage chunk alone, then [DONE], each long after the last content.
  const usageOnly = CHAT_STREAM_PARTS[USAGE_EVENT_INDEX + 2] ?? '';
  assert.match(usageOnly, /"choices":\[\],"usage":\{/);
  const timing = meterParts([sse(chatChunk([delta({ content: 'a' })])), usageOnly, sse('[DONE]')]).result();
  assert.equal(timing.firstContentMs, 100);
  assert.equal(timing.lastContentMs, 100);
  assert.equal(timing.contentEvents, 1);
  assert.equal(timing.usageOutputTokens, 7);
  assert.equal(timing.sawDone, true);
});

test('without a usage chunk, output tokens come from the estimate, and say so', () => {
  const parts = CHAT_STREAM_PARTS.filter((part) => !part.includes('"usage":{'));
  const timing = meterParts(parts).result();
  assert.equal(timing.usageOutputTokens, undefined);
  assert.equal(timing.promptTokens, undefined);
  assert.equal(timing.outputTokens, estimateTokens(CHAT_TEXT));
  assert.equal(timing.outputTokensSource, 'estimate');
});

test('several events completed by one chunk share its arrival time: one ITL sample of 0 each', () => {
  const meter = new StreamMeter({ classifier: openAiChatClassifier });
  const three = ['a', 'b', 'c'].map((text) => sse(chatChunk([delta({ content: text })]))).join('');
  meter.onBytes(bytes(three), 40);
  assert.deepEqual(meter.result().contentGaps, {
    count: 2,
    sumMs: 0,
    minMs: 0,
    maxMs: 0,
    bucketCounts: countsAt({ 0.0001: 2 }),
  });
});

test('an event is stamped with the arrival of the chunk that completes it', () => {
  const meter = new StreamMeter({ classifier: openAiChatClassifier });
  const event = sse(chatChunk([delta({ content: 'late' })]));
  meter.onBytes(bytes(event.slice(0, 20)), 10);
  meter.onBytes(bytes(event.slice(20)), 25);
  assert.equal(meter.result().firstContentMs, 25);
  assert.equal(meter.result().firstByteMs, 10);
});

test('at every split point of the recorded stream the record is the same', () => {
  const whole = new StreamMeter({ classifier: openAiChatClassifier });
  whole.onBytes(CHAT_STREAM_BYTES, 1);
  whole.end(2);
  for (let cut = 0; cut <= CHAT_STREAM_BYTES.length; cut++) {
    const meter = new StreamMeter({ classifier: openAiChatClassifier });
    meter.onBytes(CHAT_STREAM_BYTES.subarray(0, cut), 1);
    meter.onBytes(CHAT_STREAM_BYTES.subarray(cut), 1);
    meter.end(2);
    assert.deepEqual(meter.result(), whole.result(), `split at byte ${cut}`);
  }
});

test('an error event in a 200 stream is captured; bad JSON is counted', () => {
  const timing = meterParts([
    sse(chatChunk([delta({ content: 'partial' })])),
    sse('{not json'),
    sse(JSON.stringify({ error: { message: 'upstream overloaded', code: 503 } })),
  ]).result();
  assert.equal(timing.errorMessage, 'upstream overloaded');
  assert.equal(timing.unparseableEvents, 1);
  assert.equal(timing.sawDone, false);
  assert.equal(timing.contentEvents, 1);
});

test('an oversized event sets overflowed; a stream cut inside an event sets endedMidEvent', () => {
  const meter = new StreamMeter({ classifier: openAiChatClassifier, maxEventBytes: 1000 });
  meter.onBytes(bytes(sse(chatChunk([delta({ content: 'x'.repeat(2000) })]))), 1);
  meter.end(2);
  assert.equal(meter.result().overflowed, true);
  assert.equal(meter.result().contentEvents, 0);

  const cut = meterParts([sse(chatChunk([delta({ content: 'a' })])), 'data: {"choi']).result();
  assert.equal(cut.endedMidEvent, true);
  assert.equal(cut.overflowed, false);
});

test('without keepChunkDetail or keepText nothing grows with the stream', () => {
  const meter = new StreamMeter({ classifier: openAiChatClassifier });
  meter.onBytes(CHAT_STREAM_BYTES, 1);
  const timing = meter.result();
  assert.equal(timing.keptGaps, undefined);
  assert.equal(timing.text, undefined);
});

test('kept gaps stop at MAX_KEPT_GAPS and say so; the figures still count every gap', () => {
  const meter = new StreamMeter({ classifier: openAiChatClassifier, keepChunkDetail: true });
  const event = bytes(sse(chatChunk([delta({ content: 'a' })])));
  const events = MAX_KEPT_GAPS + 11;
  // Event i arrives at i ms: every gap is 1 ms.
  for (let i = 0; i < events; i++) meter.onBytes(event, i);
  meter.end(events);
  const timing = meter.result();
  assert.equal(timing.contentEvents, events);
  assert.equal(timing.keptGaps?.gapsMs.length, MAX_KEPT_GAPS);
  assert.equal(timing.keptGaps?.cut, true);
  assert.ok(timing.keptGaps?.gapsMs.every((gap) => gap === 1));
  assert.equal(timing.contentGaps.count, events - 1);
  assert.equal(timing.contentGaps.sumMs, events - 1);
  assert.deepEqual(timing.contentGaps.bucketCounts, countsAt({ 0.001: events - 1 }));
});

test('exactly MAX_KEPT_GAPS gaps are all kept and not cut', () => {
  const meter = new StreamMeter({ classifier: openAiChatClassifier, keepChunkDetail: true });
  const event = bytes(sse(chatChunk([delta({ content: 'a' })])));
  for (let i = 0; i <= MAX_KEPT_GAPS; i++) meter.onBytes(event, i);
  assert.equal(meter.result().keptGaps?.gapsMs.length, MAX_KEPT_GAPS);
  assert.equal(meter.result().keptGaps?.cut, false);
});

test('reasoning first: TTFT at the first reasoning delta, TTFO at the first answer delta, reasoning tokens', () => {
  const usage = JSON.stringify({
    id: 'x',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [],
    usage: { prompt_tokens: 5, completion_tokens: 6, completion_tokens_details: { reasoning_tokens: 4 } },
  });
  const parts = [
    sse(chatChunk([delta({ role: 'assistant', content: '' })])),
    ...['let', ' me', ' think', ' now'].map((text) => sse(chatChunk([delta({ reasoning: text })]))),
    sse(chatChunk([delta({ content: 'Yes' })])),
    sse(chatChunk([delta({ content: '.' })])),
    sse(usage),
    sse('[DONE]'),
  ];
  const timing = meterParts(parts).result();
  // Part i arrives at 100 + 10 i: the first reasoning delta is part 1, the answer starts at part 5.
  assert.equal(timing.firstContentMs, 110);
  assert.equal(timing.firstAnswerMs, 150);
  assert.equal(timing.usageReasoningTokens, 4);
  assert.equal(timing.estimatedReasoningTokens, 4);
  assert.equal(
    timing.contentEvents,
    6,
    'reasoning deltas are content events (ITL samples, as vLLM counts them)',
  );
  const figures = streamFigures(timing, 100);
  assert.equal(figures.ttftMs, 10);
  assert.equal(figures.ttfoMs, 50);
  assert.equal(figures.reasoningMs, 40);
  assert.equal(figures.reasoningTokens, 4);
  assert.equal(figures.reasoningTokensSource, 'usage');
  // Only reasoning, no answer: a TTFT, no TTFO.
  const unanswered = streamFigures(meterParts(parts.slice(0, 3)).result(), 100);
  assert.equal(unanswered.ttftMs, 10);
  assert.equal(unanswered.ttfoMs, undefined);
  assert.equal(unanswered.reasoningTokens, 2, 'without usage, the estimate of the reasoning text');
  assert.equal(unanswered.reasoningTokensSource, 'estimate');
});

// vLLM's continuous_usage_stats: a running usage on every chunk, here on the role chunk (0), on content chunks
// of 1, 3, 0 and 2 tokens, on the finish chunk, then the usage-only chunk.
const running = (completion: number): object => ({
  usage: { prompt_tokens: 5, completion_tokens: completion, total_tokens: 5 + completion },
});
const CONTINUOUS_PARTS = [
  sse(chatChunk([delta({ role: 'assistant', content: '' })], running(0))),
  sse(chatChunk([delta({ content: 'A' })], running(1))),
  sse(chatChunk([delta({ content: ' b c d' })], running(4))),
  sse(chatChunk([delta({ content: ' ' })], running(4))),
  sse(chatChunk([delta({ content: ' e f' })], running(6))),
  sse(chatChunk([delta({}, 'stop')], running(7))),
  sse(chatChunk([], running(7))),
  sse('[DONE]'),
];

test('a running usage on every content chunk gives each chunk its tokens: the growth since the previous chunk', () => {
  // Content at 110 (1 token), 120 (3), 130 (0), 140 (2).
  const timing = meterParts(CONTINUOUS_PARTS, true).result();
  assert.deepEqual(timing.chunkUsage, {
    chunks: 4,
    firstChunkTokens: 1,
    lastCompletionTokens: 6,
    multiTokenChunks: 2,
    maxChunkTokens: 3,
    lastTokensAtMs: 140,
    keptChunkTokens: [1, 3, 0, 2],
  });
  // The usage chunk's 7 stays the output count; the token counted on the finish chunk joins no chunk.
  assert.equal(timing.outputTokens, 7);
  const figures = streamFigures(timing, 0);
  assert.equal(figures.chunkTokensKnown, true);
  assert.deepEqual(figures.chunkTokens, [1, 3, 0, 2]);
  assert.equal(figures.multiTokenChunks, 2);
  assert.equal(figures.maxTokensPerChunk, 3);
  // (140 - 110) ms over the 5 tokens after the first chunk.
  assert.equal(figures.perTokenItlMeanMs, 6);
  // vLLM's ITL stays per chunk.
  assert.deepEqual(figures.itlMs, [10, 10, 10]);
  // Without kept detail the counts and the mean are the same, the list absent.
  const lean = streamFigures(meterParts(CONTINUOUS_PARTS).result(), 0);
  assert.equal(lean.chunkTokens, undefined);
  assert.equal(lean.multiTokenChunks, 2);
  assert.equal(lean.perTokenItlMeanMs, 6);
});

test('per-chunk figures need a usage on every content chunk: one chunk without it and they are unknown', () => {
  const parts = [...CONTINUOUS_PARTS];
  parts[3] = sse(chatChunk([delta({ content: ' ' })]));
  const figures = streamFigures(meterParts(parts, true).result(), 0);
  assert.equal(figures.chunkTokensKnown, false);
  assert.equal(figures.chunkTokens, undefined);
  assert.equal(figures.multiTokenChunks, undefined);
  assert.equal(figures.perTokenItlMeanMs, undefined);
  // The largest chunk falls back to the estimate of its text.
  assert.equal(figures.maxTokensPerChunk, 3);
  // Usage only at the end (include_usage alone): nothing per chunk either.
  const plain = meterParts(CHAT_STREAM_PARTS, true).result();
  assert.equal(plain.chunkUsage.chunks, 0);
  assert.equal(streamFigures(plain, 0).chunkTokensKnown, false);
});
