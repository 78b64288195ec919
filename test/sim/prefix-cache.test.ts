// The prefix cache: a second request sharing a long prompt prefix with the first finds its full blocks cached,
// prefills only the rest (a shorter prefill in the ground truth, a shorter TTFT), and every protocol reports the
// cached tokens the way its vendor does; vLLM's prefix-cache counters equal the truth.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request } from 'undici';
import type { RequestTruth } from '../../src/sim/index.js';
import { chatBody, payloads, postAndCapture } from '../helpers/sse-capture.js';
import { withSim } from './helpers/with-sim.js';

const SHARED = Array.from({ length: 60 }, (_, i) => `Rule ${i}: answer briefly and cite the source.`).join(
  ' ',
);
const TIMING = { ttftMs: 10, prefillMsPerToken: 0.2, itlMs: 2, jitter: 0 };

function chatWith(question: string): Record<string, unknown> {
  return chatBody({
    messages: [
      { role: 'system', content: SHARED },
      { role: 'user', content: question },
    ],
    max_tokens: 4,
    stream: false,
  });
}

interface Usage {
  prompt_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
  input_tokens: number;
  input_tokens_details?: { cached_tokens: number };
}

async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ usage: Usage }> {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  assert.equal(res.statusCode, 200);
  return (await res.body.json()) as { usage: Usage };
}

test('two chat requests sharing a long prefix: the second reports cached tokens and prefills less', async () => {
  await withSim({ timing: TIMING, kv: { enablePrefixCaching: true } }, async (sim) => {
    const url = `${sim.url}/v1/chat/completions`;
    const first = await postJson(url, chatWith('What is a KV cache?'), { 'x-request-id': 'p1' });
    const second = await postJson(url, chatWith('Why does TTFT drop on a cache hit?'), {
      'x-request-id': 'p2',
    });
    const t1 = sim.truth('p1') as RequestTruth;
    const t2 = sim.truth('p2') as RequestTruth;
    assert.equal(first.usage.prompt_tokens_details?.cached_tokens, 0);
    assert.equal(t1.cachedTokens, 0);
    // The system message (4 template tokens + its words) is shared: every full block of it is a hit.
    const cached = second.usage.prompt_tokens_details?.cached_tokens ?? -1;
    assert.ok(cached >= 400 && cached % 16 === 0, `cached ${cached} of ${t2.promptTokens}`);
    assert.equal(cached, t2.cachedTokens);
    assert.equal(t2.prefills[0]?.cachedTokens, cached);
    assert.equal(
      second.usage.prompt_tokens,
      t2.promptTokens,
      'OpenAI counts cached tokens among prompt tokens',
    );
    // Planned prefill: fixed part plus the uncached tokens only (a lone sequence: no batch slowdown).
    const plan = (t: RequestTruth) => t.prefills[0]?.plannedMs as number;
    assert.ok(Math.abs(plan(t1) - (10 + 0.2 * t1.promptTokens)) < 1e-9);
    assert.ok(Math.abs(plan(t2) - (10 + 0.2 * (t2.promptTokens - cached))) < 1e-9);
    assert.ok(plan(t2) < plan(t1) / 2, `prefill ${plan(t2)} ms against ${plan(t1)} ms`);
    const ttft = (t: RequestTruth) => (t.contentChunkEmittedAtMs[0] as number) - (t.startedAtMs as number);
    assert.ok(ttft(t2) < ttft(t1), 'the first token comes sooner');

    const page = await (await request(`${sim.url}/metrics`)).body.text();
    const engine = '{model_name="tokenmeter/sim-7b",engine="0"}';
    for (const name of ['prefix_cache', 'gpu_prefix_cache']) {
      assert.match(
        page,
        new RegExp(`^vllm:${name}_queries_total${engine} ${t1.promptTokens + t2.promptTokens}$`, 'm'),
      );
      assert.match(page, new RegExp(`^vllm:${name}_hits_total${engine} ${cached}$`, 'm'));
    }
  });
});

test('Responses and Messages report the same hit in their own fields; Anthropic input_tokens excludes it', async () => {
  await withSim({ timing: TIMING, kv: { enablePrefixCaching: true } }, async (sim) => {
    await postJson(`${sim.url}/v1/chat/completions`, chatWith('Warm the cache.'), { 'x-request-id': 'warm' });
    const responses = await postJson(
      `${sim.url}/v1/responses`,
      { model: 'tokenmeter/sim-7b', instructions: SHARED, input: 'Second question.', max_output_tokens: 4 },
      { 'x-request-id': 'r' },
    );
    const rTruth = sim.truth('r') as RequestTruth;
    assert.ok(rTruth.cachedTokens >= 400);
    assert.equal(responses.usage.input_tokens_details?.cached_tokens, rTruth.cachedTokens);
    assert.equal(responses.usage.input_tokens, rTruth.promptTokens);

    const streamed = await postAndCapture(
      `${sim.url}/v1/messages`,
      {
        model: 'tokenmeter/sim-7b',
        system: SHARED,
        messages: [{ role: 'user', content: 'Third question.' }],
        max_tokens: 4,
        stream: true,
      },
      { 'x-request-id': 'm' },
    );
    const mTruth = sim.truth('m') as RequestTruth;
    assert.ok(mTruth.cachedTokens >= 400);
    const delta = payloads(streamed).find((p) => p !== '[DONE]' && p['type'] === 'message_delta') as {
      usage: Record<string, number>;
    };
    assert.deepEqual(delta.usage, {
      input_tokens: mTruth.promptTokens - mTruth.cachedTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: mTruth.cachedTokens,
      output_tokens: 4,
    });
  });
});

test('prefix caching off (the default): no hits, no cached-token fields, and the prefix counters stay at 0', async () => {
  await withSim({ timing: TIMING }, async (sim) => {
    const url = `${sim.url}/v1/chat/completions`;
    await postJson(url, chatWith('One.'), { 'x-request-id': 'o1' });
    const second = await postJson(url, chatWith('Two.'), { 'x-request-id': 'o2' });
    assert.equal(second.usage.prompt_tokens_details, undefined);
    assert.equal(sim.truth('o2')?.cachedTokens, 0);
    const page = await (await request(`${sim.url}/metrics`)).body.text();
    assert.match(page, /^vllm:prefix_cache_hits_total\{[^}]*\} 0$/m);
    assert.match(page, /^vllm:prefix_cache_queries_total\{[^}]*\} 0$/m);
  });
});

test('a prompt cached to its last token still computes one block, as vLLM recomputes the last token', async () => {
  await withSim({ timing: TIMING, kv: { enablePrefixCaching: true } }, async (sim) => {
    const url = `${sim.url}/v1/chat/completions`;
    const body = chatWith('Same question twice.');
    await postJson(url, body, { 'x-request-id': 's1' });
    const again = await postJson(url, body, { 'x-request-id': 's2' });
    const t = sim.truth('s2') as RequestTruth;
    const fullBlocks = Math.floor((t.promptTokens - 1) / 16);
    assert.equal(again.usage.prompt_tokens_details?.cached_tokens, fullBlocks * 16);
  });
});

test("a conversation's next turn finds the previous prompt and the previous answer cached, block for block", async () => {
  await withSim({ timing: TIMING, kv: { enablePrefixCaching: true } }, async (sim) => {
    const url = `${sim.url}/v1/chat/completions`;
    const question = { role: 'user', content: `${SHARED} First question?` };
    const body = (messages: object[]) =>
      chatBody({ messages, max_tokens: 40, ignore_eos: true, stream: false });
    const res = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'turn1' },
      body: JSON.stringify(body([question])),
    });
    const answer = ((await res.body.json()) as { choices: Array<{ message: { content: string } }> })
      .choices[0]?.message.content as string;
    const second = await postJson(
      url,
      body([question, { role: 'assistant', content: answer }, { role: 'user', content: 'And then?' }]),
      { 'x-request-id': 'turn2' },
    );
    // Turn 2 repeats turn 1's whole context (its prompt, then its 40 generated tokens): every full block of it hits.
    const turn1 = sim.truth('turn1') as RequestTruth;
    const context = turn1.promptTokens + 40;
    assert.equal(second.usage.prompt_tokens_details?.cached_tokens, Math.floor(context / 16) * 16);
  });
});
