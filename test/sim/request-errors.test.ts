// The simulator's request errors: a missing or wrong key, an unknown model, malformed JSON.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { chatBody } from '../helpers/sse-capture.js';

let sim: RunningSimulator;
let chatOnly: RunningSimulator;
before(async () => {
  sim = await startSimulator({
    apiKey: 'sim-secret',
    servedModelNames: ['qwen-7b', 'llama-8b'],
    timing: { itlMs: 1 },
  });
  chatOnly = await startSimulator({ chatOnly: true, timing: { itlMs: 1 } });
});
after(async () => {
  await sim.close();
  await chatOnly.close();
});

const auth = { authorization: 'Bearer sim-secret' };

async function post(url: string, body: string, headers: Record<string, string> = auth) {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  const json = (await res.body.json()) as { error: { message: string; type: string; code: string | null } };
  return { status: res.statusCode, headers: res.headers, error: json.error };
}

test('missing or wrong API key: 401 in OpenAI error format', async () => {
  const body = JSON.stringify(chatBody({ model: 'qwen-7b' }));
  for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: 'sim-secret' }]) {
    const res = await post(`${sim.url}/v1/chat/completions`, body, headers);
    assert.equal(res.status, 401);
    assert.equal(res.error.code, 'invalid_api_key');
    assert.match(res.error.message, /Authorization: Bearer/);
  }
  const models = await request(`${sim.url}/v1/models`);
  assert.equal(models.statusCode, 401);
  await models.body.dump();
  const ok = await request(`${sim.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body,
  });
  assert.equal(ok.statusCode, 200);
  await ok.body.dump();
});

test('unknown model: 404 model_not_found naming the served models', async () => {
  const res = await post(
    `${sim.url}/v1/chat/completions`,
    JSON.stringify(chatBody({ model: '/root/models/Qwen' })),
  );
  assert.equal(res.status, 404);
  assert.equal(res.error.code, 'model_not_found');
  assert.match(res.error.message, /qwen-7b, llama-8b/);
});

test('malformed JSON: 400', async () => {
  const res = await post(`${sim.url}/v1/chat/completions`, '{"model": "qwen-7b", "messages": [');
  assert.equal(res.status, 400);
  assert.match(res.error.message, /not valid JSON/);
});

test('a completions body on the chat path (and the reverse): 422 naming the right endpoint', async () => {
  const onChat = await post(
    `${sim.url}/v1/chat/completions`,
    JSON.stringify({ model: 'qwen-7b', prompt: 'hi' }),
  );
  assert.equal(onChat.status, 422);
  assert.match(onChat.error.message, /messages.*\/v1\/completions/);
  const onCompletions = await post(
    `${sim.url}/v1/completions`,
    JSON.stringify({ model: 'qwen-7b', messages: [{ role: 'user', content: 'hi' }] }),
  );
  assert.equal(onCompletions.status, 422);
  assert.match(onCompletions.error.message, /prompt.*\/v1\/chat\/completions/);
});

test('values the server rejects: 400 (n > 1, temperature out of range, context too long)', async () => {
  const url = `${sim.url}/v1/chat/completions`;
  assert.equal((await post(url, JSON.stringify(chatBody({ model: 'qwen-7b', n: 2 })))).status, 400);
  assert.equal((await post(url, JSON.stringify(chatBody({ model: 'qwen-7b', temperature: 3 })))).status, 400);
  const tooLong = await post(url, JSON.stringify(chatBody({ model: 'qwen-7b', max_tokens: 100_000 })));
  assert.equal(tooLong.status, 400);
  assert.equal(tooLong.error.code, 'context_length_exceeded');
});

test('a prompt longer than the context is 400 without max_tokens too, on chat and on responses', async () => {
  // About 6,000 tokens by the built-in rule, against the default 4,096-token context.
  const long = 'hello '.repeat(6000);
  const chat = await post(
    `${sim.url}/v1/chat/completions`,
    JSON.stringify({ model: 'qwen-7b', stream: true, messages: [{ role: 'user', content: long }] }),
  );
  assert.equal(chat.status, 400);
  assert.equal(chat.error.code, 'context_length_exceeded');
  assert.match(chat.error.message, /maximum context length is 4096 tokens.*\d+ input tokens/);
  const responses = await post(
    `${sim.url}/v1/responses`,
    JSON.stringify({ model: 'qwen-7b', stream: true, input: long }),
  );
  assert.equal(responses.status, 400);
  assert.match(responses.error.message, /maximum context length is 4096 tokens/);
});

test('--chat-only: /v1/completions answers 404, chat still works', async () => {
  const res = await post(`${chatOnly.url}/v1/completions`, JSON.stringify({ prompt: 'hi' }), {});
  assert.equal(res.status, 404);
  assert.match(res.error.message, /\/v1\/chat\/completions/);
  assert.doesNotMatch(res.error.message, /\/v1\/completions,/);
  const chat = await request(`${chatOnly.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(chatBody()),
  });
  assert.equal(chat.statusCode, 200);
  await chat.body.dump();
});

test('unknown paths: 404 listing what the server answers', async () => {
  const res = await request(`${sim.url}/v1/v1/chat/completions`, { method: 'POST', body: '{}' });
  const json = (await res.body.json()) as { error: { message: string } };
  assert.equal(res.statusCode, 404);
  assert.match(json.error.message, /\/v1\/chat\/completions/);
});
