// The simulator's OpenAI Responses: stream events, response.incomplete, non-streamed responses, errors.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { estimateTokens } from '../../src/shared/token-estimate.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { postAndCapture } from '../helpers/sse-capture.js';

let sim: RunningSimulator;
before(async () => {
  sim = await startSimulator({ timing: { ttftMs: 20, itlMs: 2, jitter: 0 } });
});
after(() => sim.close());

test('stream: lifecycle events, output_text deltas, then done events and response.completed with usage', async () => {
  const captured = await postAndCapture(`${sim.url}/v1/responses`, {
    model: 'tokenmeter/sim-7b',
    input: [{ role: 'user', content: [{ type: 'input_text', text: 'Hello there' }] }],
    max_output_tokens: 50,
    stream: true,
  });
  const names = captured.events.map((e) => e.event ?? '');
  const deltas = names.filter((n) => n === 'response.output_text.delta').length;
  assert.deepEqual(names.slice(0, 4), [
    'response.created',
    'response.in_progress',
    'response.output_item.added',
    'response.content_part.added',
  ]);
  assert.ok(deltas >= 1);
  const tail = names.slice(4 + deltas);
  assert.equal(tail.length, 4);
  assert.deepEqual(tail.slice(0, 3), [
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
  ]);
  assert.match(tail[3] as string, /^response\.(completed|incomplete)$/);
  const data = captured.events.map((e) => JSON.parse(e.data) as Record<string, unknown>);
  const sequence = data.map((d) => d['sequence_number']);
  assert.deepEqual(
    sequence,
    sequence.map((_, i) => i),
    'sequence numbers count up from 0',
  );
  const text = data
    .filter((d) => d['type'] === 'response.output_text.delta')
    .map((d) => String(d['delta']))
    .join('');
  const final = data.at(-1) as {
    response: {
      usage: { input_tokens: number; output_tokens: number };
      output: Array<{ content: Array<{ text: string }> }>;
    };
  };
  assert.equal(final.response.usage.output_tokens, estimateTokens(text));
  // Like OpenAI's: the done events and the final response repeat the whole text (clients display it from there).
  const doneText = data.find((d) => d['type'] === 'response.output_text.done')?.['text'];
  assert.equal(doneText, text);
  assert.equal(final.response.output[0]?.content[0]?.text, text);
  assert.ok(final.response.usage.input_tokens > 0);
});

test('max_output_tokens reached: response.incomplete; non-streamed response object', async () => {
  const captured = await postAndCapture(`${sim.url}/v1/responses`, {
    model: 'tokenmeter/sim-7b',
    input: 'Hi',
    max_output_tokens: 3,
    stream: true,
  });
  assert.equal(captured.events.at(-1)?.event, 'response.incomplete');
  const plain = await request(`${sim.url}/v1/responses`, {
    method: 'POST',
    body: JSON.stringify({ model: 'tokenmeter/sim-7b', input: 'Hi', max_output_tokens: 4 }),
  });
  const json = (await plain.body.json()) as {
    object: string;
    status: string;
    output: Array<{ content: Array<{ text: string }> }>;
    usage: { output_tokens: number };
  };
  assert.equal(json.object, 'response');
  assert.equal(json.status, 'incomplete');
  assert.equal(json.usage.output_tokens, 4);
  assert.equal(estimateTokens(json.output[0]?.content[0]?.text ?? ''), 4);
});

test('a missing input is a 400 in OpenAI error format', async () => {
  const res = await request(`${sim.url}/v1/responses`, {
    method: 'POST',
    body: JSON.stringify({ model: 'x' }),
  });
  const json = (await res.body.json()) as { error: { message: string } };
  assert.equal(res.statusCode, 400);
  assert.match(json.error.message, /input/);
});
