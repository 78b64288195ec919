// Abort propagation starts here: the simulator must notice a departed client at once, stop generating, free the
// seat and count the cancel, so gateway tests can see whether the gateway passed the abort on.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { request } from 'undici';
import { startSimulator } from '../../src/sim/index.js';
import { chatBody } from '../helpers/sse-capture.js';

// Tokens are 1 s apart, so a simulator that only noticed the departure on its next write would take ~1 s; the
// 250 ms bound leaves room for a loaded CI machine and still fails that bug.
const NOTICE_BOUND_MS = 250;

test('a client that disconnects mid-stream is noticed at once and generation stops', async () => {
  const sim = await startSimulator({
    timing: { ttftMs: 5, itlMs: 1000, jitter: 0, maxNumSeqs: 1, batchSlowdown: 0 },
  });
  try {
    const controller = new AbortController();
    const res = await request(`${sim.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-request-id': 'leaver' },
      body: JSON.stringify(chatBody({ max_tokens: 500, ignore_eos: true })),
      signal: controller.signal,
    });
    let chunks = 0;
    let abortedAt = 0;
    try {
      for await (const _ of res.body) {
        if (++chunks === 1) {
          abortedAt = performance.now();
          controller.abort();
        }
      }
    } catch {
      // The abort surfaces here by design.
    }
    // The seat is free again only once the simulator saw the cancel: a second request must start at once.
    const next = await request(`${sim.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-request-id': 'next' },
      body: JSON.stringify(chatBody({ max_tokens: 2, ignore_eos: true, stream: false })),
    });
    await next.body.dump();
    const truth = sim.truth('leaver');
    assert.ok(truth?.cancelled, 'the cancel is in the ground truth');
    const noticeMs = (truth.cancelledAtMs ?? 0) - abortedAt;
    assert.ok(
      noticeMs >= 0 && noticeMs < NOTICE_BOUND_MS,
      `noticed ${noticeMs.toFixed(2)} ms after the abort`,
    );
    assert.equal(truth.completionTokens, 1, 'generation stopped after the one token the client saw');
    assert.ok((sim.truth('next')?.queueMs ?? 1e9) < 20, 'the seat was released');
    const metrics = await (await request(`${sim.url}/metrics`)).body.text();
    assert.match(metrics, /tokenmeter_sim_cancelled_requests_total 1/);
    assert.match(
      metrics,
      /vllm:request_success_total\{model_name="tokenmeter\/sim-7b",engine="0",finished_reason="abort"\} 1/,
    );
  } finally {
    await sim.close();
  }
});

test('a request that leaves while still queued gives its place up', async () => {
  const sim = await startSimulator({ timing: { ttftMs: 5, itlMs: 20, jitter: 0, maxNumSeqs: 1 } });
  try {
    const busy = request(`${sim.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify(chatBody({ max_tokens: 10, ignore_eos: true })),
    });
    const controller = new AbortController();
    const queued = request(`${sim.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-request-id': 'queued' },
      body: JSON.stringify(chatBody({ max_tokens: 10, ignore_eos: true })),
      signal: controller.signal,
    });
    const queuedRes = await queued;
    controller.abort();
    await queuedRes.body.dump().catch(() => {});
    await (await busy).body.dump();
    const truth = sim.truth('queued');
    assert.ok(truth?.cancelled);
    assert.equal(truth.startedAtMs, undefined, 'it never took a seat');
    assert.equal(truth.completionTokens, 0);
  } finally {
    await sim.close();
  }
});
