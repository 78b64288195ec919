// The simulator's /metrics under vLLM's names, and its ground truth at /sim/stats and /sim/truth/:id.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request } from 'undici';
import { startSimulator } from '../../src/sim/index.js';
import { chatBody, postAndCapture } from '../helpers/sse-capture.js';

function sample(metrics: string, name: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(name));
  assert.ok(line, `${name} is exported`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

test('/metrics uses vLLM metric names and counts what was served', async () => {
  const sim = await startSimulator({ timing: { ttftMs: 2, itlMs: 1, jitter: 0 } });
  try {
    for (let i = 0; i < 3; i++) {
      await postAndCapture(`${sim.url}/v1/chat/completions`, chatBody({ max_tokens: 4, ignore_eos: true }));
    }
    const res = await request(`${sim.url}/metrics`);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    const text = await res.body.text();
    const label = '{model_name="tokenmeter/sim-7b",engine="0"}';
    assert.equal(sample(text, `vllm:time_to_first_token_seconds_count${label}`), 3);
    assert.equal(sample(text, `vllm:inter_token_latency_seconds_count${label}`), 9);
    assert.equal(sample(text, `vllm:e2e_request_latency_seconds_count${label}`), 3);
    assert.equal(sample(text, `vllm:generation_tokens_total${label}`), 12);
    assert.ok(sample(text, `vllm:prompt_tokens_total${label}`) > 0);
    assert.equal(sample(text, `vllm:num_requests_running${label}`), 0);
    assert.equal(sample(text, `vllm:num_requests_waiting${label}`), 0);
    assert.equal(sample(text, 'tokenmeter_sim_emission_lateness_seconds_count'), 12);
  } finally {
    await sim.close();
  }
});

test('/sim/stats and /sim/truth/:id expose the ground truth over HTTP', async () => {
  const sim = await startSimulator({ timing: { ttftMs: 2, itlMs: 1, jitter: 0 } });
  try {
    await postAndCapture(`${sim.url}/v1/chat/completions`, chatBody({ max_tokens: 3, ignore_eos: true }), {
      'x-request-id': 'over-http',
    });
    const truth = (await (await request(`${sim.url}/sim/truth/over-http`)).body.json()) as {
      contentChunkEmittedAtMs: number[];
      receivedAtEpochMs: number;
    };
    assert.equal(truth.contentChunkEmittedAtMs.length, 3);
    assert.ok(Math.abs(truth.receivedAtEpochMs - Date.now()) < 60_000);
    const stats = (await (await request(`${sim.url}/sim/stats`)).body.json()) as {
      emissionLateness: { count: number };
    };
    assert.equal(stats.emissionLateness.count, 3);
    const missing = await request(`${sim.url}/sim/truth/nope`);
    assert.equal(missing.statusCode, 404);
    await missing.body.dump();
  } finally {
    await sim.close();
  }
});
