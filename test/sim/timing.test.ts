// The simulator is the ground truth of every timing test, so its own timing is checked twice: the plan must follow
// the configured model exactly, and what it actually wrote (and what a client received) must follow the plan.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { measureStalls } from '../helpers/loop-stall.js';
import { chatBody, postAndCapture } from '../helpers/sse-capture.js';

// Node timers never fire early and have 1 ms resolution; on a loaded 2-core CI box the event loop adds a few ms.
// 15 ms is far below the 20 ms gaps checked, so a real timing bug (a skipped step, a doubled gap) still fails.
const BASE_WRITE_TOLERANCE_MS = 15;

let sim: RunningSimulator;
let batching: RunningSimulator;
before(async () => {
  sim = await startSimulator({ timing: { ttftMs: 200, itlMs: 20, prefillMsPerToken: 0, jitter: 0 } });
  batching = await startSimulator({
    timing: { ttftMs: 100, itlMs: 20, prefillMsPerToken: 0, jitter: 0, tokensPerChunk: 3 },
  });
});
after(async () => {
  await sim.close();
  await batching.close();
});

test('first token at ttftMs, then one token every itlMs: planned exactly, written and received on time', async () => {
  const stalls = measureStalls();
  const captured = await postAndCapture(
    `${sim.url}/v1/chat/completions`,
    chatBody({ max_tokens: 10, ignore_eos: true }),
    { 'x-request-id': 'timing-1' },
  );
  // Plus the worst stall this process suffered meanwhile (test/helpers/loop-stall.ts).
  const WRITE_TOLERANCE_MS = BASE_WRITE_TOLERANCE_MS + stalls.stop();
  const truth = sim.truth('timing-1');
  assert.ok(truth?.startedAtMs !== undefined);
  const planned = truth.plannedChunkAtMs;
  assert.equal(planned.length, 10);
  assert.ok(Math.abs((planned[0] as number) - truth.startedAtMs - 200) < 1e-6);
  for (let i = 1; i < planned.length; i++) {
    assert.ok(Math.abs((planned[i] as number) - (planned[i - 1] as number) - 20) < 1e-6, `planned gap ${i}`);
  }
  truth.contentChunkEmittedAtMs.forEach((emitted, i) => {
    const late = emitted - (planned[i] as number);
    assert.ok(late >= 0 && late < WRITE_TOLERANCE_MS, `chunk ${i} written ${late.toFixed(2)} ms after plan`);
  });
  // The client sees each content chunk when it was written (role delta first, [DONE] and finish after).
  const contentArrivals = captured.events.slice(1, 11).map((e) => e.atMs);
  contentArrivals.forEach((arrival, i) => {
    const delay = arrival - (truth.contentChunkEmittedAtMs[i] as number);
    assert.ok(
      delay >= 0 && delay < WRITE_TOLERANCE_MS,
      `chunk ${i} reached the client ${delay.toFixed(2)} ms after write`,
    );
  });
  const ttft = (contentArrivals[0] as number) - captured.sentAtMs;
  // From the client's side TTFT also holds connection setup and request parsing; 100 ms of slack still fails a
  // doubled TTFT.
  assert.ok(ttft >= 200 && ttft < 300, `client TTFT ${ttft.toFixed(1)} ms`);
});

test('tokens per chunk: 3 tokens every 3 steps, the first chunk waiting for its 3 tokens', async () => {
  const captured = await postAndCapture(
    `${batching.url}/v1/chat/completions`,
    chatBody({ max_tokens: 8, ignore_eos: true }),
    { 'x-request-id': 'timing-batch' },
  );
  const truth = batching.truth('timing-batch');
  assert.ok(truth?.startedAtMs !== undefined);
  assert.deepEqual(truth.tokensPerChunk, [3, 3, 2]);
  const planned = truth.plannedChunkAtMs;
  assert.ok(Math.abs((planned[0] as number) - truth.startedAtMs - (100 + 2 * 20)) < 1e-6);
  assert.ok(Math.abs((planned[1] as number) - (planned[0] as number) - 60) < 1e-6);
  assert.ok(Math.abs((planned[2] as number) - (planned[1] as number) - 40) < 1e-6);
  assert.equal(captured.status, 200);
});

test('jitter spreads gaps within +-jitter and stays reproducible under the seed', async () => {
  const jittery = await startSimulator({
    seed: 3,
    timing: { ttftMs: 1, itlMs: 10, jitter: 0.5, prefillMsPerToken: 0 },
  });
  try {
    await postAndCapture(
      `${jittery.url}/v1/chat/completions`,
      chatBody({ max_tokens: 30, ignore_eos: true }),
      {
        'x-request-id': 'j',
      },
    );
    const planned = jittery.truth('j')?.plannedChunkAtMs ?? [];
    const gaps = planned.slice(1).map((t, i) => t - (planned[i] as number));
    assert.ok(
      gaps.every((g) => g >= 5 - 1e-9 && g <= 15 + 1e-9),
      'each gap within 10 ms x (1 +- 0.5)',
    );
    assert.ok(Math.max(...gaps) - Math.min(...gaps) > 3, 'gaps actually vary');
  } finally {
    await jittery.close();
  }
});
