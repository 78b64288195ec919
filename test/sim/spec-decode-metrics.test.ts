// The simulator's speculative-decoding counters against its ground truth: vLLM's names and labels, every series
// at 0 before the first draft (a scraper's baseline finds them, as on vLLM's page), then exactly the drafts the
// truth records: one per step after the prefill, N draft tokens each, the accepted ones in total and by position.
// Without speculative decoding the page has none of them, as vLLM's has not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request } from 'undici';
import type { RequestTruth } from '../../src/sim/index.js';
import { chatBody, postAndCapture } from '../helpers/sse-capture.js';
import { withSim } from './helpers/with-sim.js';

const N = 3;
const TIMING = { ttftMs: 2, itlMs: 1, prefillMsPerToken: 0, jitter: 0 };
const SPEC = { ...TIMING, speculativeTokens: N, specAcceptanceRate: 0.6 };
const ENGINE = 'model_name="tokenmeter/sim-7b",engine="0"';

async function page(url: string): Promise<string> {
  const res = await request(`${url}/metrics`);
  return res.body.text();
}

/** The value of the sample whose name and labels are exactly `series`; undefined when the page lacks it. */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const perPosition = (position: number): string =>
  `vllm:spec_decode_num_accepted_tokens_per_pos_total{${ENGINE},position="${position}"}`;

test("speculative decoding: vLLM's spec_decode counters, at 0 from the start, then equal to the truth", async () => {
  await withSim({ seed: 11, timing: SPEC }, async (sim) => {
    const before = await page(sim.url);
    assert.equal(value(before, `vllm:spec_decode_num_drafts_total{${ENGINE}}`), 0);
    assert.equal(value(before, `vllm:spec_decode_num_draft_tokens_total{${ENGINE}}`), 0);
    assert.equal(value(before, `vllm:spec_decode_num_accepted_tokens_total{${ENGINE}}`), 0);
    for (let position = 0; position < N; position++) assert.equal(value(before, perPosition(position)), 0);
    assert.equal(value(before, perPosition(N)), undefined, 'positions 0 to N - 1 only');

    const lengths = [1, 2, 17, 40, 40, 63];
    await Promise.all(
      lengths.map((maxTokens, i) =>
        postAndCapture(
          `${sim.url}/v1/chat/completions`,
          // Each its own prompt: a request's drafts are seeded by its prompt (the same request drafts alike).
          chatBody({
            max_tokens: maxTokens,
            ignore_eos: true,
            messages: [{ role: 'user', content: `Question ${i}: explain speculative decoding.` }],
          }),
          {
            'x-request-id': `spec-${i}`,
          },
        ),
      ),
    );
    const truths = lengths.map((_, i) => sim.truth(`spec-${i}`) as RequestTruth);
    for (const truth of truths) {
      const chunks = truth.tokensPerChunk;
      // One verification step per chunk after the prefill's; each chunk is 1 + its step's accepted drafts, the
      // last cut to what the answer had left.
      assert.equal(truth.acceptedDrafts.length, chunks.length - 1);
      let written = chunks[0] as number;
      truth.acceptedDrafts.forEach((accepted, step) => {
        assert.ok(accepted >= 0 && accepted <= N);
        const left = truth.completionTokens - written;
        assert.equal(chunks[step + 1], Math.min(1 + accepted, left));
        written += chunks[step + 1] as number;
      });
    }
    const steps = truths.flatMap((t) => t.acceptedDrafts);
    assert.ok(steps.length > 40 && new Set(steps).size === N + 1, `every acceptance count drawn: ${steps}`);

    const after = await page(sim.url);
    assert.equal(value(after, `vllm:spec_decode_num_drafts_total{${ENGINE}}`), steps.length);
    assert.equal(value(after, `vllm:spec_decode_num_draft_tokens_total{${ENGINE}}`), N * steps.length);
    assert.equal(
      value(after, `vllm:spec_decode_num_accepted_tokens_total{${ENGINE}}`),
      steps.reduce((a, b) => a + b, 0),
    );
    for (let position = 0; position < N; position++)
      assert.equal(value(after, perPosition(position)), steps.filter((a) => a > position).length);
  });
});

test('without speculative decoding the page has no spec_decode series', async () => {
  await withSim({ timing: TIMING }, async (sim) => {
    await postAndCapture(`${sim.url}/v1/chat/completions`, chatBody({ max_tokens: 5, ignore_eos: true }));
    assert.doesNotMatch(await page(sim.url), /spec_decode/);
  });
});
