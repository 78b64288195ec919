// The simulator's chat wire format: role delta, content deltas, finish chunk, usage chunk only when asked, [DONE].
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { estimateTokens } from '../../src/shared/token-estimate.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { chatBody, payloads, postAndCapture } from '../helpers/sse-capture.js';

let sim: RunningSimulator;
before(async () => {
  sim = await startSimulator({ timing: { ttftMs: 5, itlMs: 1, jitter: 0 } });
});
after(() => sim.close());

type Chunk = Record<string, unknown> & { object: string; choices: Array<Record<string, unknown>> };

test('chat stream: role delta, content deltas, finish chunk, usage-only chunk, then [DONE]', async () => {
  const body = chatBody({ max_tokens: 6, ignore_eos: true, stream_options: { include_usage: true } });
  const captured = await postAndCapture(`${sim.url}/v1/chat/completions`, body);
  assert.equal(captured.status, 200);
  assert.match(String(captured.headers['content-type']), /^text\/event-stream/);
  assert.ok(
    captured.raw
      .split('\n\n')
      .slice(0, -1)
      .every((block) => block.startsWith('data: ')),
    'data: {json}\\n\\n',
  );
  const events = payloads(captured);
  assert.equal(events.length, 1 + 6 + 1 + 1 + 1);
  const [role, ...rest] = events as Chunk[];
  assert.deepEqual(role?.choices[0]?.['delta'], { role: 'assistant', content: '' });
  const contents = rest.slice(0, 6);
  for (const chunk of contents) {
    assert.equal(chunk.object, 'chat.completion.chunk');
    const delta = chunk.choices[0]?.['delta'] as Record<string, unknown>;
    assert.equal(typeof delta['content'], 'string');
    assert.notEqual(delta['content'], '');
    assert.equal(chunk.choices[0]?.['finish_reason'], null);
  }
  const finish = rest[6] as Chunk;
  assert.equal(finish.choices[0]?.['finish_reason'], 'length');
  const usageChunk = rest[7] as Chunk;
  assert.deepEqual(usageChunk.choices, []);
  const usage = usageChunk['usage'] as Record<string, number>;
  assert.ok((usage['prompt_tokens'] ?? 0) > 0);
  assert.equal(usage['completion_tokens'], 6);
  assert.equal(usage['total_tokens'], (usage['prompt_tokens'] ?? 0) + 6);
  assert.equal(events[events.length - 1], '[DONE]');
  const text = contents
    .map((c) => (c.choices[0]?.['delta'] as { content?: string } | undefined)?.content ?? '')
    .join('');
  assert.equal(estimateTokens(text), 6, 'the built-in token rule counts the simulator output exactly');
});

test('no usage chunk unless stream_options.include_usage is true', async () => {
  const events = payloads(
    await postAndCapture(`${sim.url}/v1/chat/completions`, chatBody({ max_tokens: 3 })),
  );
  assert.ok((events as Chunk[]).slice(0, -1).every((e) => e.choices.length === 1));
  assert.equal(events[events.length - 1], '[DONE]');
});

test('completions stream: text chunks, no role delta, finish and usage', async () => {
  const captured = await postAndCapture(`${sim.url}/v1/completions`, {
    model: 'tokenmeter/sim-7b',
    prompt: 'Once upon a time',
    max_tokens: 4,
    ignore_eos: true,
    stream: true,
    stream_options: { include_usage: true },
  });
  const events = payloads(captured) as Chunk[];
  assert.equal(events.length, 4 + 1 + 1 + 1);
  for (const chunk of events.slice(0, 4)) {
    assert.equal(chunk.object, 'text_completion');
    assert.notEqual(chunk.choices[0]?.['text'], '');
  }
  assert.equal(events[4]?.choices[0]?.['finish_reason'], 'length');
  assert.equal((events[5]?.['usage'] as Record<string, number> | undefined)?.['completion_tokens'], 4);
});

test('non-streaming chat and completions bodies look like vLLM answers', async () => {
  const chat = await request(`${sim.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(chatBody({ stream: false, max_tokens: 5, ignore_eos: true })),
  });
  const chatJson = (await chat.body.json()) as Chunk;
  assert.equal(chat.statusCode, 200);
  assert.equal(chatJson.object, 'chat.completion');
  const message = chatJson.choices[0]?.['message'] as { role: string; content: string };
  assert.equal(message.role, 'assistant');
  assert.equal(estimateTokens(message.content), 5);
  assert.equal((chatJson['usage'] as Record<string, number>)['completion_tokens'], 5);

  const completion = await request(`${sim.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'Say something', max_tokens: 3, ignore_eos: true }),
  });
  const completionJson = (await completion.body.json()) as Chunk;
  assert.equal(completionJson.object, 'text_completion');
  assert.equal(estimateTokens(String(completionJson.choices[0]?.['text'])), 3);
});

test('content as a list of text parts (the form vLLM benchmark sends) is accepted and counted', async () => {
  const asString = await postAndCapture(
    `${sim.url}/v1/chat/completions`,
    chatBody({
      messages: [{ role: 'user', content: 'alpha beta gamma' }],
      stream_options: { include_usage: true },
    }),
  );
  const asParts = await postAndCapture(
    `${sim.url}/v1/chat/completions`,
    chatBody({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'alpha beta gamma' }] }],
      stream_options: { include_usage: true },
    }),
  );
  const usage = (s: typeof asString) =>
    ((payloads(s) as Chunk[]).find((e) => e['usage'])?.['usage'] as Record<string, number> | undefined)?.[
      'prompt_tokens'
    ];
  assert.equal(asParts.status, 200);
  assert.equal(usage(asParts), usage(asString));
});

test('GET /v1/models lists the served models and /health answers 200', async () => {
  const models = await request(`${sim.url}/v1/models`);
  const json = (await models.body.json()) as { object: string; data: Array<{ id: string }> };
  assert.equal(json.object, 'list');
  assert.deepEqual(
    json.data.map((m) => m.id),
    ['tokenmeter/sim-7b'],
  );
  const health = await request(`${sim.url}/health`);
  assert.equal(health.statusCode, 200);
  await health.body.dump();
});
