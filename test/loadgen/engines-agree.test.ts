// The same workload on both engines (12 requests of 20 tokens, 4 at a time, exact simulator timings) gives the
// same per-request records: same outcomes and token counts, TTFT medians within 20 ms plus the worst stall this
// process suffered (test/helpers/loop-stall.ts), and TPOT medians within 1.5 ms. The closed-loop
// engine replays the dataset once across its connections (autocannon alone would send p0,p0,p1,p1,...).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createClosedLoopEngine } from '../../loadgen/engine/closed-loop-engine.js';
import { createOpenLoopEngine } from '../../loadgen/engine/open-loop-engine.js';
import { median } from '../../loadgen/metrics/numpy-stats.js';
import { tpotMs } from '../../loadgen/metrics/vllm-metrics.js';
import type { RequestRecord } from '../../loadgen/record.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { measureStalls } from '../helpers/loop-stall.js';
import { chatRequests, exactTiming, runEngineAgainst } from './helpers/bench-fixtures.js';

const COUNT = 12;
const TOKENS = 20;
let sim: RunningSimulator;

before(async () => {
  sim = await startSimulator({ seed: 2, timing: exactTiming(30, 5) });
});
after(() => sim.close());

function medianOf(records: RequestRecord[], pick: (r: RequestRecord) => number | undefined | null): number {
  return median(records.map(pick).filter((v): v is number => typeof v === 'number'));
}

test('open-loop and closed-loop engines agree on the same workload', async () => {
  const stalls = measureStalls();
  const open = await runEngineAgainst(
    createOpenLoopEngine({ offsetsMs: new Array(COUNT).fill(0), maxConcurrency: 4 }),
    sim.url,
    chatRequests(COUNT, TOKENS, 'open-'),
  );
  const closed = await runEngineAgainst(
    createClosedLoopEngine(4),
    sim.url,
    chatRequests(COUNT, TOKENS, 'closed-'),
  );

  for (const run of [open, closed]) {
    assert.deepEqual(
      run.records.map((r) => r.index),
      Array.from({ length: COUNT }, (_, i) => i),
      'each dataset entry exactly once',
    );
    for (const r of run.records) {
      assert.equal(r.outcome, 'ok', `#${r.index}: ${r.error}`);
      assert.equal(r.outputTokens, TOKENS);
      assert.equal(r.contentChunks, TOKENS);
    }
    assert.ok(Math.max(...run.records.map((r) => r.sentAtMs ?? 0)) > 0);
  }
  for (let i = 0; i < COUNT; i++) {
    assert.ok(sim.truth(`closed-${i}`) !== undefined, `the server saw closed-${i}`);
  }
  const ttftGap = Math.abs(
    medianOf(open.records, (r) => r.ttftMs) - medianOf(closed.records, (r) => r.ttftMs),
  );
  const tpotGap = Math.abs(medianOf(open.records, tpotMs) - medianOf(closed.records, tpotMs));
  const stallMs = stalls.stop();
  assert.ok(ttftGap <= 20 + stallMs, `TTFT medians differ by ${ttftGap} ms (worst stall ${stallMs} ms)`);
  assert.ok(tpotGap <= 1.5, `TPOT medians differ by ${tpotGap} ms`);
  // The open loop queued requests behind the cap of 4 and recorded the wait, not as latency.
  assert.ok(
    open.records.some((r) => r.clientQueueMs > 50),
    'queue time recorded for capped requests',
  );
  assert.ok(medianOf(open.records, (r) => r.ttftMs) < 100, 'queue time kept out of TTFT');
});
