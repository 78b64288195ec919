// The KV model against its ground truth, over real HTTP: a cache too small for the load it gets fills to the top,
// preempts the latest-admitted sequence when a running one needs a block, and every preempted sequence is
// recomputed and finishes whole; blocks in use never exceed the capacity; /metrics says what the truth says.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request } from 'undici';
import { UserFacingError } from '../../src/shared/user-facing-error.js';
import { type RequestTruth, startSimulator } from '../../src/sim/index.js';
import { chatBody, payloads, postAndCapture } from '../helpers/sse-capture.js';

interface KvStats {
  capacityBlocks: number;
  usedBlocks: number;
  peakUsedBlocks: number;
  preemptions: number;
}

/** The value of one sample line of a Prometheus page (the first series whose line starts with `prefix`). */
function sampleOf(page: string, prefix: string): number {
  const line = page.split('\n').find((l) => l.startsWith(prefix));
  assert.ok(line, `${prefix} is on the page`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

const ENGINE = '{model_name="tokenmeter/sim-7b",engine="0"}';

test('a small KV cache under load: usage reaches 95%+, sequences are preempted, recomputed and all finish; metrics equal the truth', async () => {
  // 64 blocks (1,024 tokens); each request grows to ~40 + 200 tokens = 15 blocks, 12 at once want ~180 blocks.
  const sim = await startSimulator({
    timing: { ttftMs: 5, itlMs: 5, prefillMsPerToken: 0.01, jitter: 0, maxNumSeqs: 16, maxModelLen: 512 },
    kv: { kvCacheTokens: 1024 },
  });
  const metricsUrl = `${sim.url}/metrics`;
  let sampling = true;
  let peakUsage = 0;
  const sampler = (async () => {
    while (sampling) {
      const page = await (await request(metricsUrl)).body.text();
      peakUsage = Math.max(peakUsage, sampleOf(page, `vllm:kv_cache_usage_perc${ENGINE}`));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  try {
    const ids = Array.from({ length: 12 }, (_, i) => `kv-${i}`);
    const streams = await Promise.all(
      ids.map((id, i) =>
        postAndCapture(
          `${sim.url}/v1/chat/completions`,
          chatBody({
            messages: [{ role: 'user', content: `Request ${i}: explain why the KV cache fills under load.` }],
            max_tokens: 200,
            ignore_eos: true,
            stream_options: { include_usage: true },
          }),
          { 'x-request-id': id },
        ),
      ),
    );
    sampling = false;
    await sampler;

    const truths = ids.map((id) => sim.truth(id) as RequestTruth);
    // Every request, preempted or not, streamed its whole answer once: 200 tokens, finish `length`, [DONE].
    streams.forEach((stream, i) => {
      assert.equal(stream.status, 200);
      const events = payloads(stream);
      assert.equal(events.at(-1), '[DONE]');
      const usage = (events.at(-2) as { usage: { completion_tokens: number } }).usage;
      assert.equal(usage.completion_tokens, 200, `${ids[i]} usage`);
      assert.equal(truths[i]?.completionTokens, 200);
      assert.equal(truths[i]?.finishReason, 'length');
    });
    const preempted = truths.filter((t) => t.preemptedAtMs.length > 0);
    assert.ok(preempted.length > 0, 'the load preempts sequences');
    for (const t of truths) {
      // One prefill per admission: the first, then one recomputation per preemption, of the whole context so far.
      assert.equal(t.prefills.length, t.preemptedAtMs.length + 1, `${t.requestId} prefills`);
      t.prefills.slice(1).forEach((p, k) => {
        const preemptedAt = t.preemptedAtMs[k] as number;
        const sentBefore = t.contentChunkEmittedAtMs.filter((at) => at < preemptedAt).length;
        assert.equal(
          p.contextTokens,
          t.promptTokens + sentBefore,
          'it recomputes the prompt and what it sent',
        );
        assert.ok(p.atMs > preemptedAt, 'readmitted after its preemption');
      });
    }
    // The victim is always the latest admitted of the sequences running at that moment.
    for (const victim of preempted) {
      victim.preemptedAtMs.forEach((at) => {
        const admittedAt = (t: RequestTruth) => t.prefills.filter((p) => p.atMs < at).at(-1)?.atMs;
        const running = truths.filter((t) => {
          const since = admittedAt(t);
          if (since === undefined || (t.endedAtMs ?? Infinity) < at) return false;
          return !t.preemptedAtMs.some((p) => p > since && p < at);
        });
        const latest = Math.max(...running.map((t) => admittedAt(t) as number));
        assert.equal(admittedAt(victim), latest, `${victim.requestId} preempted at ${at.toFixed(1)}`);
      });
    }

    const stats = (await (await request(`${sim.url}/sim/stats`)).body.json()) as { kv: KvStats };
    assert.equal(stats.kv.capacityBlocks, 64);
    assert.ok(stats.kv.peakUsedBlocks <= stats.kv.capacityBlocks, 'blocks in use never exceed the capacity');
    assert.equal(
      stats.kv.peakUsedBlocks,
      stats.kv.capacityBlocks,
      'a preemption happens only with every block held',
    );
    assert.equal(stats.kv.usedBlocks, 0, 'every block is given back');
    assert.ok(peakUsage >= 0.95, `KV usage sampled on /metrics peaked at ${peakUsage}`);

    const page = await (await request(metricsUrl)).body.text();
    const preemptions = truths.reduce((n, t) => n + t.preemptedAtMs.length, 0);
    assert.equal(stats.kv.preemptions, preemptions);
    assert.equal(sampleOf(page, `vllm:num_preemptions_total${ENGINE}`), preemptions);
    assert.equal(sampleOf(page, `vllm:kv_cache_usage_perc${ENGINE}`), 0);
    assert.equal(sampleOf(page, `vllm:gpu_cache_usage_perc${ENGINE}`), 0);
    assert.equal(sampleOf(page, `vllm:num_requests_running${ENGINE}`), 0);
    assert.equal(sampleOf(page, `vllm:num_requests_waiting${ENGINE}`), 0);
    assert.equal(sampleOf(page, `vllm:request_queue_time_seconds_count${ENGINE}`), ids.length);
    const queueSum = truths.reduce((s, t) => s + (t.queueMs ?? 0) / 1000, 0);
    assert.ok(Math.abs(sampleOf(page, `vllm:request_queue_time_seconds_sum${ENGINE}`) - queueSum) < 1e-9);
    assert.equal(sampleOf(page, `vllm:time_to_first_token_seconds_count${ENGINE}`), ids.length);
    const generated = sampleOf(page, `vllm:generation_tokens_total${ENGINE}`);
    assert.equal(generated, 200 * ids.length, 'recomputed tokens are not generated twice');
    process.stdout.write(
      `# KV ${stats.kv.capacityBlocks} blocks: peak ${stats.kv.peakUsedBlocks} in use, ${preemptions} preemptions of ${preempted.length} requests, peak sampled usage ${peakUsage.toFixed(3)}\n`,
    );
  } finally {
    sampling = false;
    await sampler;
    await sim.close();
  }
});

test('default settings: the pool holds a full context for every seat, so nothing is ever preempted', async () => {
  const sim = await startSimulator({
    timing: { ttftMs: 2, itlMs: 1, jitter: 0, maxNumSeqs: 4, maxModelLen: 256 },
  });
  try {
    assert.deepEqual(sim.kvCapacity, { blocks: 4 * 16, tokens: 4 * 256, source: 'seats' });
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        postAndCapture(`${sim.url}/v1/chat/completions`, chatBody({ max_tokens: 200, ignore_eos: true }), {
          'x-request-id': `d${i}`,
        }),
      ),
    );
    const stats = (await (await request(`${sim.url}/sim/stats`)).body.json()) as { kv: KvStats };
    assert.equal(stats.kv.preemptions, 0);
    assert.ok(stats.kv.peakUsedBlocks > 0 && stats.kv.peakUsedBlocks <= 64);
  } finally {
    await sim.close();
  }
});

test('like vLLM, the simulator refuses to start when one --max-model-len sequence cannot fit, and says which flag to change', async () => {
  await assert.rejects(
    startSimulator({ timing: { maxModelLen: 4096 }, kv: { kvCacheTokens: 1000 } }),
    (error: unknown) =>
      error instanceof UserFacingError &&
      /max seq len \(4096\) is larger than the maximum number of tokens that can be stored in KV cache \(992\)/.test(
        error.message,
      ) &&
      /--kv-cache-tokens or decreasing --max-model-len/.test(error.message),
  );
  // 0.9 x 24 GiB - 15 GiB = 6.6 GiB of KV at 128 KiB a token: 54,067 tokens, 3,379 whole blocks.
  const sim = await startSimulator({ kv: { gpuMemoryUtilization: 0.9 } });
  try {
    assert.deepEqual(sim.kvCapacity, { blocks: 3379, tokens: 54_064, source: 'gpu-memory-utilization' });
  } finally {
    await sim.close();
  }
  await assert.rejects(
    startSimulator({ kv: { gpuMemoryUtilization: 0.5 } }),
    (error: unknown) =>
      error instanceof UserFacingError && /No available memory for the cache blocks/.test(error.message),
  );
});

test('clients that go away while running or while preempted give their blocks and places back; the rest finish', async () => {
  const sim = await startSimulator({
    timing: { ttftMs: 5, itlMs: 3, prefillMsPerToken: 0, jitter: 0, maxNumSeqs: 16, maxModelLen: 256 },
    kv: { kvCacheTokens: 512 },
  });
  try {
    const body = JSON.stringify(chatBody({ max_tokens: 200, ignore_eos: true }));
    const ids = Array.from({ length: 8 }, (_, i) => `c${i}`);
    const controllers = ids.map(() => new AbortController());
    const outcomes = ids.map(async (id, i) => {
      const res = await request(`${sim.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': id },
        body,
        signal: (controllers[i] as AbortController).signal,
      });
      return res.body.text();
    });
    // The four latest admitted leave once the pool has run out: the first victims are among them (back in the queue).
    const deadline = performance.now() + 10_000;
    while (
      ((await (await request(`${sim.url}/sim/stats`)).body.json()) as { kv: KvStats }).kv.preemptions === 0
    ) {
      assert.ok(performance.now() < deadline, 'a preemption within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    for (const controller of controllers.slice(4)) controller.abort();
    const settled = await Promise.allSettled(outcomes);
    assert.deepEqual(
      settled.map((s) => s.status),
      ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected', 'rejected', 'rejected'],
    );
    for (const id of ids.slice(0, 4))
      assert.equal(sim.truth(id)?.completionTokens, 200, `${id} finished whole`);
    const gone = ids.slice(4).map((id) => sim.truth(id) as RequestTruth);
    assert.ok(gone.every((t) => t.cancelled));
    // Preempted and not yet readmitted when its client left: one preemption more than recomputations.
    assert.ok(
      gone.some((t) => t.preemptedAtMs.length === t.prefills.length),
      `one left while preempted: ${gone.map((t) => `${t.preemptedAtMs.length}/${t.prefills.length}`)}`,
    );
    const stats = (await (await request(`${sim.url}/sim/stats`)).body.json()) as {
      running: number;
      waiting: number;
      kv: KvStats;
    };
    assert.deepEqual([stats.running, stats.waiting, stats.kv.usedBlocks], [0, 0, 0]);
  } finally {
    await sim.close();
  }
});
