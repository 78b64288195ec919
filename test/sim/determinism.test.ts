// Same request, same answer: the simulator derives an answer's length, words and tool decision from the request
// and its seed, never from the order requests arrive in. So two bench runs of one seeded workload against one
// simulator (the second run's requests arriving after the first's, in another interleaving) generate the same
// tokens, and a sampled request asked twice gets the same answer.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/run-cli.js';

let sim: RunningSimulator;
before(async () => {
  sim = await startSimulator({
    seed: 3,
    timing: { ttftMs: 1, prefillMsPerToken: 0, itlMs: 0.2, eosMedianTokens: 40 },
  });
});
after(() => sim.close());

function generatedTokens(stdout: string): number {
  const match = /Total generated tokens:\s+(\d+)/.exec(stdout);
  assert.ok(match, `no "Total generated tokens" line in:\n${stdout}`);
  return Number(match[1]);
}

async function benchRun(): Promise<number> {
  const run = await runCli([
    'bench',
    '--backend',
    'openai-chat',
    '--base-url',
    sim.url,
    '--model',
    'tokenmeter/sim-7b',
    '--num-prompts',
    '45',
    '--seed',
    '7',
    '--max-concurrency',
    '16',
  ]);
  assert.equal(run.code, 0, run.stderr);
  return generatedTokens(run.stdout);
}

test('two bench runs of one seeded workload against one simulator generate the same tokens', async () => {
  const first = await benchRun();
  const second = await benchRun();
  assert.equal(second, first);
});
