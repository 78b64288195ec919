// The simulator's Anthropic Messages: stream events and usage, non-streamed messages, its error formats.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { estimateTokens } from '../../src/shared/token-estimate.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { postAndCapture } from '../helpers/sse-capture.js';

let sim: RunningSimulator;
before(async () => {
  sim = await startSimulator({
    apiKey: 'ant-key',
    timing: { ttftMs: 150, itlMs: 5, jitter: 0, prefillMsPerToken: 0 },
  });
});
after(() => sim.close());

const headers = { 'x-api-key': 'ant-key', 'anthropic-version': '2023-06-01' };
const body = (overrides: Record<string, unknown> = {}) => ({
  model: 'tokenmeter/sim-7b',
  max_tokens: 5,
  messages: [{ role: 'user', content: 'Hello' }],
  stream: true,
  ...overrides,
});

test('stream: lifecycle events at once, text deltas after TTFT, then stop events with usage', async () => {
  const captured = await postAndCapture(`${sim.url}/v1/messages`, body(), {
    ...headers,
    'x-request-id': 'ant-1',
  });
  assert.equal(captured.status, 200);
  const names = captured.events.map((e) => e.event);
  assert.deepEqual(names, [
    'message_start',
    'content_block_start',
    'ping',
    ...Array(5).fill('content_block_delta'),
    'content_block_stop',
    'message_delta',
    'message_stop',
  ]);
  const data = captured.events.map((e) => JSON.parse(e.data) as Record<string, unknown>);
  assert.ok(captured.events.every((e, i) => (data[i] as { type: string }).type === e.event));
  const start = data[0] as { message: { usage: { input_tokens: number } } };
  assert.ok(start.message.usage.input_tokens > 0);
  const text = data
    .slice(3, 8)
    .map((d) => (d as { delta: { type: string; text: string } }).delta)
    .map((delta) => {
      assert.equal(delta.type, 'text_delta');
      return delta.text;
    })
    .join('');
  assert.equal(estimateTokens(text), 5);
  const delta = data[9] as { delta: { stop_reason: string }; usage: { output_tokens: number } };
  assert.equal(delta.delta.stop_reason, 'max_tokens');
  assert.equal(delta.usage.output_tokens, 5);
  // message_start and ping arrive long before the first text: a meter stamping TTFT on them would be ~150 ms early.
  const truth = sim.truth('ant-1');
  assert.equal(truth?.endpoint, 'anthropic-messages');
  // Judged on the simulator's own clock: headers and lifecycle events go out ~150 ms before the first text.
  assert.ok(truth?.headersAtMs !== undefined);
  const firstWrite = truth.contentChunkEmittedAtMs[0] ?? 0;
  assert.ok(firstWrite - truth.headersAtMs >= 140, 'lifecycle events precede the first token');
  assert.ok(
    (captured.events[3]?.atMs ?? 0) >= firstWrite,
    'the client sees the first text only after it was written',
  );
});

test('non-streamed message, and the Anthropic error format for auth, model and shape errors', async () => {
  const ok = await request(`${sim.url}/v1/messages`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body({ stream: false, max_tokens: 3 })),
  });
  const message = (await ok.body.json()) as {
    type: string;
    content: Array<{ text: string }>;
    usage: { output_tokens: number };
  };
  assert.equal(message.type, 'message');
  assert.equal(message.usage.output_tokens, 3);
  assert.equal(estimateTokens(message.content[0]?.text ?? ''), 3);

  const cases: Array<[Record<string, string>, unknown, number, string]> = [
    [{}, body(), 401, 'authentication_error'],
    [{ 'x-api-key': 'wrong' }, body(), 401, 'authentication_error'],
    [headers, body({ model: 'claude-nope' }), 404, 'not_found_error'],
    [
      headers,
      { model: 'tokenmeter/sim-7b', messages: [{ role: 'user', content: 'hi' }] },
      400,
      'invalid_request_error',
    ],
  ];
  for (const [h, b, status, type] of cases) {
    const res = await request(`${sim.url}/v1/messages`, {
      method: 'POST',
      headers: h,
      body: JSON.stringify(b),
    });
    const json = (await res.body.json()) as { type: string; error: { type: string; message: string } };
    assert.equal(res.statusCode, status);
    assert.equal(json.type, 'error');
    assert.equal(json.error.type, type);
  }
});

test('an error event inside a 200 stream (the errorBody fault)', async () => {
  const faulty = await startSimulator({ faults: { errorBodyRate: 1 } });
  try {
    const captured = await postAndCapture(`${faulty.url}/v1/messages`, body());
    assert.equal(captured.status, 200);
    assert.deepEqual(
      captured.events.map((e) => e.event),
      ['message_start', 'content_block_start', 'ping', 'error'],
    );
  } finally {
    await faulty.close();
  }
});
