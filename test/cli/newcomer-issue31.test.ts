// What a newcomer still tripped on (issue 31, items 1-8 and 10), one row each through the real executable against
// real servers on 127.0.0.1. Item 1 (the packed install) is test/cli/packed-install.test.ts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { EXIT_OK } from '../../src/cli/exit-codes.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/run-cli.js';
import { cleanEnv } from '../loadgen/helpers/bench-cli.js';
import { exactTiming } from '../loadgen/helpers/bench-fixtures.js';

/** Each request: 20 ms to the first token, then 500 ms a token. */
let slowSim: RunningSimulator;

before(async () => {
  slowSim = await startSimulator({ seed: 31, timing: exactTiming(20, 500) });
});
after(() => slowSim.close());

function stderrLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line !== '');
}

test('8: with --max-concurrency the ETA still follows the schedule: elapsed + ETA near the run end', async () => {
  // The article's shape scaled down: a rate under a cap that never binds. 40 requests at 8 req/s end their
  // schedule near 5 s, each takes about 1.5 s (4 tokens), so about 12 are in flight, under the cap of 32. Early
  // on, few have finished: the last seconds' completion rate (what the ETA read under a cap) was a fraction of 8/s.
  const res = await runCli(
    [
      'bench',
      '--base-url',
      slowSim.url,
      '--dataset-name',
      'random',
      '--random-input-len',
      '8',
      '--random-output-len',
      '4',
      '--ignore-eos',
      '--num-prompts',
      '40',
      '--request-rate',
      '8',
      '--burstiness',
      '1000',
      '--max-concurrency',
      '32',
      '--no-records',
    ],
    cleanEnv(),
  );
  assert.equal(res.code, EXIT_OK, res.stderr);
  const duration = Number(res.stdout.match(/^Benchmark duration \(s\): +([\d.]+)/m)?.[1]);
  const lines = stderrLines(res.stderr).filter((line) => line.startsWith('progress: '));
  assert.ok(lines.length >= 5, res.stderr);
  let checked = 0;
  for (const line of lines) {
    const match = line.match(/^progress: (\d+)\/40 done .*, ([\d.]+) s, ETA (\d+):(\d\d);/);
    assert.ok(match, line);
    const [done, elapsed, minutes, seconds] = match.slice(1).map(Number) as [number, number, number, number];
    if (done < 4 || done === 40) continue;
    checked++;
    // The ETA is printed in whole seconds, rounded up: a second of slack beside the 10%.
    const predicted = elapsed + minutes * 60 + seconds;
    assert.ok(Math.abs(predicted - duration) <= 0.1 * duration + 1, `${line} (run took ${duration} s)`);
  }
  assert.ok(checked >= 3, res.stderr);
});
