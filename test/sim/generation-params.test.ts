// The simulator's generation parameters: max tokens, ignore_eos, stop strings and their finish reasons.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { estimateTokens } from '../../src/shared/token-estimate.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { chatBody, payloads, postAndCapture } from '../helpers/sse-capture.js';

type Chunk = { choices: Array<{ delta?: { content?: string }; finish_reason?: string | null }> };

async function answer(sim: RunningSimulator, overrides: Record<string, unknown>) {
  const events = payloads(await postAndCapture(`${sim.url}/v1/chat/completions`, chatBody(overrides)));
  const chunks = events.filter((e): e is Record<string, unknown> => e !== '[DONE]') as unknown as Chunk[];
  const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
  const finish = chunks.map((c) => c.choices[0]?.finish_reason).find((r) => r);
  return { text, finish, tokens: estimateTokens(text) };
}

let sim: RunningSimulator;
let shortAnswers: RunningSimulator;
before(async () => {
  const timing = { ttftMs: 1, itlMs: 0.5, jitter: 0 };
  sim = await startSimulator({ seed: 7, timing });
  shortAnswers = await startSimulator({ timing: { ...timing, eosMedianTokens: 3 } });
});
after(async () => {
  await Promise.all([sim.close(), shortAnswers.close()]);
});

test('max_tokens and max_completion_tokens cap the answer with finish_reason length', async () => {
  const a = await answer(sim, { max_tokens: 7, ignore_eos: true });
  assert.equal(a.tokens, 7);
  assert.equal(a.finish, 'length');
  const b = await answer(sim, { max_tokens: 50, max_completion_tokens: 4, ignore_eos: true });
  assert.equal(b.tokens, 4, 'max_completion_tokens wins over the deprecated max_tokens');
});

test('without ignore_eos answers end on their own (finish_reason stop); ignore_eos runs to max_tokens', async () => {
  const natural = await answer(shortAnswers, { max_tokens: 200 });
  assert.equal(natural.finish, 'stop');
  assert.ok(natural.tokens < 200);
  const forced = await answer(shortAnswers, { max_tokens: 40, ignore_eos: true });
  assert.equal(forced.tokens, 40);
  assert.equal(forced.finish, 'length');
});

test('a stop string ends the answer before it, with finish_reason stop', async () => {
  const full = await answer(sim, { max_tokens: 60, ignore_eos: true, temperature: 0 });
  const word = full.text.split(' ')[5] as string;
  const stopped = await answer(sim, { max_tokens: 60, ignore_eos: true, temperature: 0, stop: [word] });
  assert.equal(stopped.finish, 'stop');
  assert.ok(!stopped.text.includes(word), 'the stop string is never sent');
  assert.ok(full.text.startsWith(stopped.text));
});

test('deterministic under --seed: the same requests in the same order get the same words', async () => {
  const timing = { ttftMs: 1, itlMs: 0.5, jitter: 0 };
  const [a, b, c] = await Promise.all([
    startSimulator({ seed: 7, timing }),
    startSimulator({ seed: 7, timing }),
    startSimulator({ seed: 8, timing }),
  ]);
  try {
    const body = { max_tokens: 20, ignore_eos: true };
    for (let i = 0; i < 3; i++) {
      const [ra, rb, rc] = await Promise.all([answer(a, body), answer(b, body), answer(c, body)]);
      assert.equal(ra.text, rb.text, `request ${i}: same seed, same answer`);
      assert.notEqual(ra.text, rc.text, `request ${i}: other seed, other answer`);
      assert.match(ra.text, /^[A-Z][a-z]+( [a-zA-Z]+|[.,])+$/, 'readable words, not random bytes');
    }
  } finally {
    await Promise.all([a.close(), b.close(), c.close()]);
  }
});

test('same request, same answer: greedy and sampled alike; sampling differs from greedy and with the request seed', async () => {
  const body = { max_tokens: 15, ignore_eos: true };
  const g1 = await answer(sim, { ...body, temperature: 0 });
  const g2 = await answer(sim, { ...body, temperature: 0 });
  assert.equal(g1.text, g2.text);
  const s1 = await answer(sim, { ...body, temperature: 0.8 });
  const s2 = await answer(sim, { ...body, temperature: 0.8 });
  assert.equal(s1.text, s2.text, 'the answer does not depend on when the request came');
  assert.notEqual(s1.text, g1.text);
  const seeded = await answer(sim, { ...body, temperature: 0.8, seed: 11 });
  assert.notEqual(seeded.text, s1.text, "the request's own seed draws another answer");
});
