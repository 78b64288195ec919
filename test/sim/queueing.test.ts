// The load model: beyond maxNumSeqs requests wait, so TTFT climbs with concurrency, and decode slows as the batch
// grows. Checked on the simulator's own plan and truth, so the assertions do not depend on machine speed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startSimulator } from '../../src/sim/index.js';
import { chatBody, postAndCapture } from '../helpers/sse-capture.js';

test('more concurrent requests than seats: the rest queue and their TTFT grows by whole answers', async () => {
  const sim = await startSimulator({
    timing: { maxNumSeqs: 2, ttftMs: 20, itlMs: 10, prefillMsPerToken: 0, jitter: 0, batchSlowdown: 0 },
  });
  try {
    const ids = Array.from({ length: 6 }, (_, i) => `q${i}`);
    await Promise.all(
      ids.map((id) =>
        postAndCapture(`${sim.url}/v1/chat/completions`, chatBody({ max_tokens: 5, ignore_eos: true }), {
          'x-request-id': id,
        }),
      ),
    );
    const truths = ids.map((id) => {
      const t = sim.truth(id);
      assert.ok(t?.startedAtMs !== undefined && t.endedAtMs !== undefined);
      return {
        start: t.startedAtMs,
        end: t.endedAtMs,
        queue: t.queueMs ?? 0,
        ttft: (t.contentChunkEmittedAtMs[0] ?? 0) - t.receivedAtMs,
      };
    });
    // Never more than two sequences at once: every start after the first two happens when a seat frees.
    const ends = truths.map((t) => t.end).sort((a, b) => a - b);
    const starts = truths.map((t) => t.start).sort((a, b) => a - b);
    for (let i = 2; i < starts.length; i++) {
      assert.ok((starts[i] as number) >= (ends[i - 2] as number) - 1e-6, `start ${i} waits for a free seat`);
    }
    // One answer takes 20 + 4 x 10 = 60 ms, so at least four requests queue (how long depends on arrival spread).
    assert.ok(
      truths.filter((t) => t.queue > 20).length >= 4,
      `queued: ${truths.map((t) => t.queue.toFixed(0))}`,
    );
    const ttfts = truths.map((t) => t.ttft).sort((a, b) => a - b);
    assert.ok(
      (ttfts[5] as number) > 2.5 * (ttfts[0] as number),
      `TTFT climbs under load: ${ttfts.map((x) => x.toFixed(0))}`,
    );
  } finally {
    await sim.close();
  }
});

test('decode slows as the batch grows: planned gaps widen by batchSlowdown per extra sequence', async () => {
  const sim = await startSimulator({
    timing: { maxNumSeqs: 8, ttftMs: 40, itlMs: 10, prefillMsPerToken: 0, jitter: 0, batchSlowdown: 0.25 },
  });
  try {
    await postAndCapture(`${sim.url}/v1/chat/completions`, chatBody({ max_tokens: 4, ignore_eos: true }), {
      'x-request-id': 'alone',
    });
    await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        postAndCapture(`${sim.url}/v1/chat/completions`, chatBody({ max_tokens: 20, ignore_eos: true }), {
          'x-request-id': `b${i}`,
        }),
      ),
    );
    const gapOf = (id: string) => {
      const planned = sim.truth(id)?.plannedChunkAtMs ?? [];
      return (planned[2] as number) - (planned[1] as number);
    };
    assert.ok(Math.abs(gapOf('alone') - 10) < 1e-6, 'a lone sequence decodes at itlMs');
    // With 4 running: 10 x (1 + 0.25 x 3) = 17.5 ms per step.
    assert.ok(Math.abs(gapOf('b0') - 17.5) < 1e-6, `batched gap ${gapOf('b0')}`);
  } finally {
    await sim.close();
  }
});
