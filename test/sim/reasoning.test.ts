// Reasoning mode on the wire, per protocol: the reasoning part streams first (chat's `reasoning` or
// `reasoning_content` delta, Anthropic's thinking block, Responses' reasoning item and reasoning_text events), the
// answer after it, usage counts the reasoning tokens, and the ground truth knows when the answer started.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request } from 'undici';
import type { RequestTruth } from '../../src/sim/index.js';
import { type CapturedStream, chatBody, payloads, postAndCapture } from '../helpers/sse-capture.js';
import { withSim } from './helpers/with-sim.js';

const TIMING = { ttftMs: 5, itlMs: 2, prefillMsPerToken: 0, jitter: 0 };
type Json = Record<string, unknown>;

function jsonEvents(stream: CapturedStream): Json[] {
  return payloads(stream).filter((p): p is Json => p !== '[DONE]');
}

/** The answer begins with the chunk after the reasoning part: with one token a chunk, chunk number `reasoning`. */
function assertAnswerStart(truth: RequestTruth, reasoning: number): void {
  assert.equal(truth.reasoningTokens, reasoning);
  assert.equal(truth.firstAnswerTokenAtMs, truth.contentChunkEmittedAtMs[reasoning]);
  assert.ok((truth.firstAnswerTokenAtMs as number) > (truth.contentChunkEmittedAtMs[0] as number));
}

for (const field of ['reasoning', 'reasoning_content'] as const) {
  test(`chat: ${field} deltas before the content, reasoning_tokens in usage, the answer's start in the truth`, async () => {
    await withSim({ timing: TIMING, reasoning: { tokens: 5, chatField: field } }, async (sim) => {
      const stream = await postAndCapture(
        `${sim.url}/v1/chat/completions`,
        chatBody({ max_tokens: 8, ignore_eos: true, stream_options: { include_usage: true } }),
        { 'x-request-id': 'c' },
      );
      const events = jsonEvents(stream);
      const deltas = events.flatMap((e) => (e['choices'] as Json[]).map((c) => c['delta'] as Json));
      assert.deepEqual(deltas[0], { role: 'assistant', content: '' });
      const reasoning = deltas.filter((d) => field in d);
      const content = deltas.filter((d) => typeof d['content'] === 'string' && d['content'] !== '');
      assert.equal(reasoning.length, 5);
      assert.equal(content.length, 3);
      const other = field === 'reasoning' ? 'reasoning_content' : 'reasoning';
      assert.ok(
        deltas.every((d) => !(other in d)),
        `only the ${field} spelling`,
      );
      assert.ok(deltas.indexOf(reasoning[4] as Json) < deltas.indexOf(content[0] as Json), 'reasoning first');
      const usage = events.at(-1)?.['usage'] as Json;
      assert.deepEqual(usage['completion_tokens_details'], { reasoning_tokens: 5 });
      assert.equal(
        usage['completion_tokens'],
        8,
        'reasoning tokens count toward completion tokens and max_tokens',
      );
      assertAnswerStart(sim.truth('c') as RequestTruth, 5);

      const res = await request(`${sim.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(chatBody({ max_tokens: 8, ignore_eos: true, stream: false })),
      });
      const body = (await res.body.json()) as { choices: Array<{ message: Json }> };
      const message = body.choices[0]?.message as Json;
      assert.equal(
        (message[field] as string).split(' ').length,
        5,
        'the non-streamed message carries it too',
      );
      assert.equal((message['content'] as string).split(' ').length, 3);
    });
  });
}

test('Anthropic: a thinking block (thinking_delta, signature) before the text block at index 1', async () => {
  await withSim({ timing: TIMING, reasoning: { tokens: 4 } }, async (sim) => {
    const stream = await postAndCapture(
      `${sim.url}/v1/messages`,
      {
        model: 'tokenmeter/sim-7b',
        messages: [{ role: 'user', content: 'Think first.' }],
        max_tokens: 7,
        stream: true,
      },
      { 'x-request-id': 'a' },
    );
    const events = jsonEvents(stream);
    const kinds = events.map((e) => {
      const delta = e['delta'] as Json | undefined;
      const block = e['content_block'] as Json | undefined;
      return `${e['type']}${block ? `:${block['type']}` : ''}${delta?.['type'] ? `:${delta['type']}` : ''}`;
    });
    assert.deepEqual(kinds.slice(0, 3), ['message_start', 'content_block_start:thinking', 'ping']);
    const thinking = events.filter((e) => (e['delta'] as Json | undefined)?.['type'] === 'thinking_delta');
    assert.equal(thinking.length, 4);
    assert.ok(thinking.every((e) => e['index'] === 0));
    const switchAt = kinds.indexOf('content_block_delta:signature_delta');
    assert.deepEqual(kinds.slice(switchAt, switchAt + 3), [
      'content_block_delta:signature_delta',
      'content_block_stop',
      'content_block_start:text',
    ]);
    const text = events.filter((e) => (e['delta'] as Json | undefined)?.['type'] === 'text_delta');
    assert.ok(text.length > 0 && text.every((e) => e['index'] === 1));
    assert.deepEqual(kinds.slice(-3), ['content_block_stop', 'message_delta', 'message_stop']);
    assert.equal(events.at(-3)?.['index'], 1);
    assertAnswerStart(sim.truth('a') as RequestTruth, 4);

    const res = await request(`${sim.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'tokenmeter/sim-7b',
        messages: [{ role: 'user', content: 'Hi.' }],
        max_tokens: 7,
      }),
    });
    const body = (await res.body.json()) as { content: Json[] };
    assert.deepEqual(
      body.content.map((b) => b['type']),
      ['thinking', 'text'],
    );
  });
});

test('Responses: a reasoning item with reasoning_text deltas, then the message at output_index 1; reasoning_tokens in usage', async () => {
  await withSim({ timing: TIMING, reasoning: { tokens: 3 } }, async (sim) => {
    const stream = await postAndCapture(
      `${sim.url}/v1/responses`,
      { model: 'tokenmeter/sim-7b', input: 'Think first.', max_output_tokens: 6, stream: true },
      { 'x-request-id': 'r' },
    );
    const events = jsonEvents(stream);
    const types = events.map((e) => e['type'] as string);
    assert.equal(types.filter((t) => t === 'response.reasoning_text.delta').length, 3);
    const lastReasoning = types.lastIndexOf('response.reasoning_text.delta');
    const firstText = types.indexOf('response.output_text.delta');
    assert.deepEqual(types.slice(lastReasoning + 1, firstText), [
      'response.reasoning_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    const added = events.filter((e) => e['type'] === 'response.output_item.added');
    assert.deepEqual(
      added.map((e) => [e['output_index'], (e['item'] as Json)['type']]),
      [
        [0, 'reasoning'],
        [1, 'message'],
      ],
    );
    assert.ok(
      events.filter((e) => e['type'] === 'response.output_text.delta').every((e) => e['output_index'] === 1),
    );
    const sequence = events.map((e) => e['sequence_number']);
    assert.deepEqual(
      sequence,
      sequence.map((_, i) => i),
    );
    const final = events.at(-1)?.['response'] as { usage: Json; output: Json[] };
    assert.deepEqual(final.usage['output_tokens_details'], { reasoning_tokens: 3 });
    assert.deepEqual(
      final.output.map((o) => o['type']),
      ['reasoning', 'message'],
    );
    assertAnswerStart(sim.truth('r') as RequestTruth, 3);
  });
});

test('per request: x-sim-reasoning-tokens overrides the flag (0 turns it off); completions never reason', async () => {
  await withSim({ timing: TIMING, reasoning: { tokens: 6 } }, async (sim) => {
    const body = chatBody({ max_tokens: 8, ignore_eos: true });
    await postAndCapture(`${sim.url}/v1/chat/completions`, body, {
      'x-request-id': 'h2',
      'x-sim-reasoning-tokens': '2',
    });
    assertAnswerStart(sim.truth('h2') as RequestTruth, 2);
    await postAndCapture(`${sim.url}/v1/chat/completions`, body, {
      'x-request-id': 'h0',
      'x-sim-reasoning-tokens': '0',
    });
    const off = sim.truth('h0') as RequestTruth;
    assert.equal(off.reasoningTokens, 0);
    assert.equal(off.firstAnswerTokenAtMs, off.contentChunkEmittedAtMs[0]);
    await postAndCapture(
      `${sim.url}/v1/completions`,
      { model: 'tokenmeter/sim-7b', prompt: 'Hi', max_tokens: 4, stream: true },
      { 'x-request-id': 'cmpl' },
    );
    assert.equal(sim.truth('cmpl')?.reasoningTokens, 0);
    const bad = await postAndCapture(`${sim.url}/v1/chat/completions`, body, {
      'x-sim-reasoning-tokens': 'lots',
    });
    assert.equal(bad.status, 400);
    assert.match(bad.raw, /x-sim-reasoning-tokens must be an integer/);
  });
});

test('max_tokens spent inside the reasoning: finish length, no answer, the reasoning part closed properly', async () => {
  await withSim({ timing: TIMING, reasoning: { tokens: 10 } }, async (sim) => {
    const stream = await postAndCapture(
      `${sim.url}/v1/messages`,
      {
        model: 'tokenmeter/sim-7b',
        messages: [{ role: 'user', content: 'Long thought.' }],
        max_tokens: 4,
        stream: true,
      },
      { 'x-request-id': 'cut' },
    );
    const events = jsonEvents(stream);
    const types = events.map((e) => e['type']);
    assert.deepEqual(types.slice(-4), [
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    assert.equal((events.at(-2)?.['delta'] as Json | undefined)?.['stop_reason'], 'max_tokens');
    const truth = sim.truth('cut') as RequestTruth;
    assert.equal(truth.reasoningTokens, 4);
    assert.equal(truth.firstAnswerTokenAtMs, undefined);
  });
});
