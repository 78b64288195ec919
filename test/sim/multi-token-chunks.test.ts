// Multi-token chunks and vLLM's continuous_usage_stats on the wire: speculative decoding writes each step as one
// chunk of 1 + the accepted drafts (the prefill's token alone first), drawn from the seed; with
// `stream_options: {include_usage, continuous_usage_stats}` every chunk carries the running usage, which vLLM
// honours only beside include_usage; without it the bytes are those of a stream without the option.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RequestTruth } from '../../src/sim/index.js';
import { type CapturedStream, chatBody, payloads, postAndCapture } from '../helpers/sse-capture.js';
import { withSim } from './helpers/with-sim.js';

const TIMING = { ttftMs: 5, itlMs: 2, prefillMsPerToken: 0, jitter: 0 };
const SPEC = { ...TIMING, speculativeTokens: 4, specAcceptanceRate: 0.6 };
type Json = Record<string, unknown>;

function jsonEvents(stream: CapturedStream): Json[] {
  return payloads(stream).filter((p): p is Json => p !== '[DONE]');
}

function contentText(event: Json): string {
  const choice = (event['choices'] as Json[])[0];
  const delta = choice?.['delta'] as Json | undefined;
  return (delta?.['content'] as string | undefined) ?? (choice?.['text'] as string | undefined) ?? '';
}

test('speculative decoding: one chunk per step of 1 to 1 + N tokens, the first one token, seeded', async () => {
  const runs: number[][] = [];
  for (const round of [0, 1]) {
    await withSim({ seed: 7, timing: SPEC }, async (sim) => {
      const stream = await postAndCapture(
        `${sim.url}/v1/chat/completions`,
        chatBody({ max_tokens: 60, ignore_eos: true, stream_options: { include_usage: true } }),
        { 'x-request-id': `spec-${round}` },
      );
      const truth = sim.truth(`spec-${round}`) as RequestTruth;
      const chunks = truth.tokensPerChunk;
      assert.equal(chunks[0], 1, 'the prefill yields one token');
      assert.ok(chunks.every((k) => k >= 1 && k <= 1 + SPEC.speculativeTokens));
      assert.equal(
        chunks.reduce((a, b) => a + b, 0),
        60,
      );
      assert.ok(new Set(chunks).size > 2, `a mix of sizes: ${chunks}`);
      // One content event per chunk, each as long as its tokens (one word or mark a token).
      const contents = jsonEvents(stream).filter((e) => contentText(e) !== '');
      assert.equal(contents.length, chunks.length);
      runs.push(chunks);
    });
  }
  assert.deepEqual(runs[0], runs[1], 'the same seed draws the same acceptances');
});

for (const path of ['chat/completions', 'completions'] as const) {
  test(`${path}: continuous_usage_stats puts the running usage on every chunk, matching the truth`, async () => {
    await withSim({ timing: { ...TIMING, tokensPerChunk: 3 } }, async (sim) => {
      const options = { include_usage: true, continuous_usage_stats: true };
      const base =
        path === 'completions'
          ? { model: 'tokenmeter/sim-7b', prompt: 'Say something.', stream: true }
          : chatBody();
      const stream = await postAndCapture(
        `${sim.url}/v1/${path}`,
        { ...base, max_tokens: 10, ignore_eos: true, stream_options: options },
        { 'x-request-id': path },
      );
      const truth = sim.truth(path) as RequestTruth;
      assert.deepEqual(truth.tokensPerChunk, [3, 3, 3, 1]);
      const events = jsonEvents(stream);
      const withChoices = events.filter((e) => (e['choices'] as Json[]).length > 0);
      // Every chunk with choices carries usage: the role chunk (chat) 0, each content chunk the count so far.
      for (const event of withChoices) assert.ok(event['usage'] !== undefined, JSON.stringify(event));
      const prompt = truth.promptTokens;
      const running = withChoices.filter((e) => contentText(e) !== '').map((e) => e['usage'] as Json);
      let sum = 0;
      assert.deepEqual(
        running,
        truth.tokensPerChunk.map((k) => {
          sum += k;
          return { prompt_tokens: prompt, completion_tokens: sum, total_tokens: prompt + sum };
        }),
      );
      if (path === 'chat/completions') {
        assert.deepEqual((withChoices[0] as Json)['usage'], {
          prompt_tokens: prompt,
          completion_tokens: 0,
          total_tokens: prompt,
        });
      }
      const finish = withChoices[withChoices.length - 1] as Json;
      assert.equal((finish['usage'] as Json)['completion_tokens'], 10);
      // The usage-only chunk still closes the stream.
      assert.deepEqual(events[events.length - 1]?.['choices'], []);
    });
  });
}

test('continuous_usage_stats without include_usage is ignored, as vLLM ignores it; absent, chunks have no usage', async () => {
  await withSim({ timing: TIMING }, async (sim) => {
    for (const stream_options of [{ continuous_usage_stats: true }, { include_usage: true }]) {
      const stream = await postAndCapture(
        `${sim.url}/v1/chat/completions`,
        chatBody({ max_tokens: 4, ignore_eos: true, stream_options }),
      );
      const withChoices = jsonEvents(stream).filter((e) => (e['choices'] as Json[]).length > 0);
      assert.equal(withChoices.length, 1 + 4 + 1);
      for (const event of withChoices) assert.equal(event['usage'], undefined, JSON.stringify(event));
    }
  });
});
