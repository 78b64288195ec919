// The Anthropic Messages and OpenAI Responses classifiers, fed the simulator's own streams over a real socket and
// hand-written events for what the simulator does not send (thinking, tool input, errors).
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import type { EventClassifier } from '../../src/measure/answer-facts.js';
import { streamFigures } from '../../src/measure/stream-figures.js';
import { StreamMeter } from '../../src/measure/stream-meter.js';
import { anthropicMessagesClassifier } from '../../src/protocols/anthropic-messages/stream-classifier.js';
import { openAiResponsesClassifier } from '../../src/protocols/openai-responses/stream-classifier.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import type { SseEvent } from '../../src/sse/sse-parser.js';

let sim: RunningSimulator;
before(async () => {
  sim = await startSimulator({ timing: { ttftMs: 120, itlMs: 10, jitter: 0, prefillMsPerToken: 0 } });
});
after(() => sim.close());

async function meterStream(classifier: EventClassifier, path: string, body: object, id: string) {
  const meter = new StreamMeter({ classifier });
  const start = performance.now();
  const res = await request(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': id },
    body: JSON.stringify(body),
  });
  for await (const chunk of res.body) meter.onBytes(chunk as Buffer, performance.now());
  meter.end(performance.now());
  return { timing: meter.result(), latencies: streamFigures(meter.result(), start), truth: sim.truth(id) };
}

// Arrival lags the simulator's write by the loopback and event-loop delay; 20 ms is generous on a loaded CI box
// and far below the 120 ms a lifecycle event would be early by.
const ARRIVAL_TOLERANCE_MS = 20;

test('Anthropic: TTFT at the first text delta, never at message_start or ping; usage from both halves', async () => {
  const { timing, latencies, truth } = await meterStream(
    anthropicMessagesClassifier,
    '/v1/messages',
    { model: 'tokenmeter/sim-7b', max_tokens: 6, messages: [{ role: 'user', content: 'Hi' }], stream: true },
    'a1',
  );
  assert.ok(truth);
  const firstWrite = truth.contentChunkEmittedAtMs[0] as number;
  const firstArrival = timing.firstContentMs as number;
  assert.ok(firstArrival >= firstWrite && firstArrival - firstWrite < ARRIVAL_TOLERANCE_MS);
  assert.ok((latencies.ttftMs ?? 0) >= 120, `TTFT ${latencies.ttftMs} ms is not stamped on lifecycle events`);
  assert.equal(timing.contentEvents, 6);
  assert.equal(timing.promptTokens, truth.promptTokens);
  assert.equal(timing.usageOutputTokens, 6);
  assert.equal(timing.outputTokensSource, 'usage');
  assert.equal(timing.finishReason, 'max_tokens');
  assert.equal(timing.sawDone, true);
});

test('Responses: TTFT at the first output_text delta; usage and the end from response.incomplete', async () => {
  const { timing, latencies, truth } = await meterStream(
    openAiResponsesClassifier,
    '/v1/responses',
    { model: 'tokenmeter/sim-7b', input: 'Hi', max_output_tokens: 5, stream: true },
    'r1',
  );
  assert.ok(truth);
  assert.ok((latencies.ttftMs ?? 0) >= 120);
  assert.equal(timing.contentEvents, 5);
  assert.equal(timing.usageOutputTokens, 5);
  assert.equal(timing.estimatedOutputTokens, 5, '*.done events do not count the text again');
  assert.equal(timing.finishReason, 'max_output_tokens');
  assert.equal(timing.sawDone, true);
});

const event = (type: string, data: object): SseEvent => ({
  event: type,
  data: JSON.stringify({ type, ...data }),
  id: undefined,
  startByte: 0,
  endByte: 0,
});

test('Anthropic: thinking and tool input count as content; signatures, pings and starts do not; errors are read', () => {
  const c = anthropicMessagesClassifier;
  assert.deepEqual(
    c.classify(event('content_block_delta', { delta: { type: 'thinking_delta', thinking: 'Hm' } })),
    {
      contentText: 'Hm',
      reasoning: true,
    },
  );
  assert.deepEqual(
    c.classify(event('content_block_delta', { delta: { type: 'input_json_delta', partial_json: '{"a"' } })),
    { contentText: '{"a"' },
  );
  assert.deepEqual(
    c.classify(event('content_block_delta', { delta: { type: 'signature_delta', signature: 'x' } })),
    {},
  );
  assert.deepEqual(c.classify(event('content_block_delta', { delta: { type: 'text_delta', text: '' } })), {});
  assert.deepEqual(c.classify(event('ping', {})), {});
  assert.deepEqual(
    c.classify(event('content_block_start', { content_block: { type: 'text', text: '' } })),
    {},
  );
  assert.deepEqual(
    c.classify(event('message_start', { message: { usage: { input_tokens: 12, output_tokens: 1 } } })),
    {
      promptTokens: 12,
    },
  );
  assert.deepEqual(
    c.classify(event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } })),
    {
      errorMessage: 'Overloaded',
    },
  );
  assert.deepEqual(
    c.classify({ event: 'message_start', data: '{oops', id: undefined, startByte: 0, endByte: 0 }),
    {
      unparseable: true,
    },
  );
});

test('Responses: reasoning and function-call arguments count; response.failed and error carry messages', () => {
  const c = openAiResponsesClassifier;
  assert.deepEqual(c.classify(event('response.reasoning_text.delta', { delta: 'think' })), {
    contentText: 'think',
    reasoning: true,
  });
  assert.deepEqual(c.classify(event('response.reasoning_summary_text.delta', { delta: 'sum' })), {
    contentText: 'sum',
    reasoning: true,
  });
  assert.deepEqual(c.classify(event('response.function_call_arguments.delta', { delta: '{"x":1' })), {
    contentText: '{"x":1',
  });
  assert.deepEqual(c.classify(event('response.output_text.done', { text: 'whole text again' })), {});
  assert.deepEqual(c.classify(event('response.created', { response: {} })), {});
  assert.deepEqual(c.classify(event('response.failed', { response: { error: { message: 'boom' } } })), {
    done: true,
    errorMessage: 'boom',
  });
  assert.deepEqual(c.classify(event('error', { message: 'bad request' })), { errorMessage: 'bad request' });
  assert.deepEqual(
    c.classify(
      event('response.completed', {
        response: { status: 'completed', usage: { input_tokens: 3, output_tokens: 9 } },
      }),
    ),
    { done: true, promptTokens: 3, completionTokens: 9, finishReason: 'completed' },
  );
});
