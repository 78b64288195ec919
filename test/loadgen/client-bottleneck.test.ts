// Which verdict names what set the load, over real sockets against the simulator:
// - `--request-rate inf --max-concurrency 64` (the run): the cap set the load, so the verdicts name the cap
//   and not the load generator, although the opening burst of 64 takes the loop milliseconds to dispatch;
// - a client that genuinely cannot keep its schedule: this process blocks its own event loop for 40 ms in every
//   50 (a busy wait, so the lateness is made, not hoped for) while its open loop paces 100 req/s, so most sends
//   leave up to 40 ms late and the load generator is named.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { arrivalSchedule } from '../../loadgen/arrivals.js';
import { createOpenLoopEngine } from '../../loadgen/engine/open-loop-engine.js';
import { extraMetrics } from '../../loadgen/metrics/extra-metrics.js';
import { verdicts } from '../../loadgen/report/verdicts.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { bench, cleanEnv, scratchDir } from './helpers/bench-cli.js';
import { chatRequests, exactTiming, runEngineAgainst } from './helpers/bench-fixtures.js';

let sim: RunningSimulator;

before(async () => {
  sim = await startSimulator({ seed: 3, timing: exactTiming(5, 2) });
});
after(() => sim.close());

test('a capped inf run: the cap is named with its numbers, the load generator is not', async () => {
  const run = await bench(
    [
      '--base-url',
      sim.url,
      '--request-rate',
      'inf',
      '--max-concurrency',
      '64',
      '--num-prompts',
      '300',
      '--dataset-name',
      'random',
      '--random-input-len',
      '16',
      '--random-output-len',
      '8',
      '--ignore-eos',
      '--result-dir',
      scratchDir(),
      '--disable-tqdm',
    ],
    cleanEnv(),
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stdout,
    /--max-concurrency set the load: 236 of 300 requests \(78\.7%\) waited for a free slot/,
  );
  assert.doesNotMatch(run.stdout, /schedule lag p99 .* exceeds|load generator sent late/);
});

test('a client kept from its schedule by its own busy loop is named as the bottleneck', async () => {
  const count = 60;
  const offsetsMs = arrivalSchedule(count, { requestRate: 100, burstiness: 1000, seed: 1 }).offsetsMs;
  const stall = setInterval(() => {
    const until = performance.now() + 40;
    while (performance.now() < until) {
      // Busy: the scheduler cannot run, whatever the machine's load.
    }
  }, 10);
  let run: Awaited<ReturnType<typeof runEngineAgainst>>;
  try {
    run = await runEngineAgainst(
      createOpenLoopEngine({ offsetsMs }),
      sim.url,
      chatRequests(count, 4, 'late-'),
    );
  } finally {
    clearInterval(stall);
  }
  assert.ok(run.records.every((r) => r.outcome === 'ok'));
  const list = verdicts(run.records, extraMetrics(run.records, [99]));
  const named = list.find((v) => v.kind === 'client-bottleneck');
  assert.ok(named, `verdicts: ${list.map((v) => v.kind).join(', ')}`);
  assert.match(
    named.message,
    /^schedule lag p99 \d+\.\d\d ms exceeds 10 ms \(median \d+\.\d\d ms; \d+ of 60 requests/,
  );
  assert.equal(
    list.some((v) => v.kind === 'concurrency-cap'),
    false,
  );
});
