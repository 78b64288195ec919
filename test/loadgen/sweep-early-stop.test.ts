// --stop-on-saturation in a sweep, through the real CLI against the simulator: the level that stops early is the
// answer. It is judged fell-behind (its few steady requests would otherwise read "unclear"), said on stderr, marked
// in the table, sweep-summary.json and the HTML page, no level after it runs, and the sweep exits 4. About 2 s.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { MIN_STEADY_REQUESTS } from '../../loadgen/sweep/sweep-level.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/run-cli.js';
import { cleanEnv, scratchDir } from './helpers/bench-cli.js';

// One seat, 20 ms + 9 x 10 ms per answer: about 9 req/s. The first level offers 15 req/s for 8 s; the stop
// window is 1 s, so the level stops about 1.3 s in, long before its schedule ends.
let sim: RunningSimulator;

before(async () => {
  sim = await startSimulator({
    seed: 8,
    timing: { ttftMs: 20, itlMs: 10, jitter: 0, prefillMsPerToken: 0, maxNumSeqs: 1, batchSlowdown: 0 },
  });
});
after(async () => {
  await sim.close();
});

interface Level {
  offered_rate: number;
  requests: number;
  steady_requests: number;
  status: string;
  reason: string;
  result_file: string;
  early_stop: { reason: string; at_s: number; window_s: number } | null;
}
interface Summary {
  levels: Level[];
  knee: { finding: string; sentence: string };
  stopped_early: { swept: string; offered_rate: number; reason: string; skipped: number[]; sentence: string };
}

test('a sweep level stopped by --stop-on-saturation is judged fell-behind, ends the sweep and exits 4', async () => {
  const dir = scratchDir();
  const html = join(dir, 'sweep.html');
  const run = await runCli(
    [
      'sweep',
      '--base-url',
      sim.url,
      '--dataset-name',
      'random',
      '--random-input-len',
      '16',
      '--random-output-len',
      '10',
      '--ignore-eos',
      '--rates',
      '15,30',
      '--level-seconds',
      '8',
      '--num-prompts',
      '20',
      '--stop-on-saturation',
      '--stop-window',
      '1',
      '--server-metrics-interval',
      '0.25',
      '--disable-tqdm',
      '--result-dir',
      dir,
      '--html',
      html,
    ],
    cleanEnv(),
  );
  assert.equal(run.code, 4, run.stderr);
  assert.match(
    run.stderr,
    /^rate 15: stopped early at [\d.]+ s by --stop-on-saturation \(\d+ of 120 requests sent\): .+; fell-behind -> /m,
  );
  const stopSentence =
    /^The sweep stopped at 15\.00 req\/s: --stop-on-saturation cut that level short at [\d.]+ s, so it fell behind and the level after it \(30\.00 req\/s\) did not run\.$/m;
  assert.match(run.stderr, stopSentence);
  assert.match(run.stdout, stopSentence);
  assert.match(run.stdout, /^ +15\.00 .* fell-behind \(stopped early\)$/m, run.stdout);
  assert.doesNotMatch(run.stdout, /^ +30\.00 /m, 'the level after it did not run');

  const summary = JSON.parse(readFileSync(join(dir, 'sweep-summary.json'), 'utf8')) as Summary;
  assert.equal(summary.levels.length, 1);
  const [level] = summary.levels as [Level];
  assert.equal(level.status, 'fell-behind');
  assert.match(level.reason, /^stopped early at [\d.]+ s by --stop-on-saturation: /);
  assert.equal(level.early_stop?.reason, 'saturation');
  assert.equal(level.early_stop?.window_s, 1);
  assert.ok(level.requests < 120, `cut short: ${level.requests} of 120 sent`);
  // Too few steady requests to show a rate: without the stop's evidence this level would read "unclear".
  assert.ok(level.steady_requests < MIN_STEADY_REQUESTS, `${level.steady_requests} steady requests`);
  assert.equal(summary.knee.finding, 'past-knee', summary.knee.sentence);
  assert.equal(summary.stopped_early.offered_rate, 15);
  assert.equal(summary.stopped_early.reason, 'saturation');
  assert.deepEqual(summary.stopped_early.skipped, [30]);

  // The level's own result file says why it stopped, as a bench run's does; no file for the level not run.
  const result = JSON.parse(readFileSync(join(dir, level.result_file), 'utf8')) as {
    tokenmeter: { early_stop: { reason: string } };
  };
  assert.equal(result.tokenmeter.early_stop.reason, 'saturation');
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.includes('30.0qps')),
    [],
  );

  assert.ok(existsSync(html));
  const page = readFileSync(html, 'utf8');
  assert.match(page, /<strong>Stopped early:<\/strong> The sweep stopped at 15\.00 req\/s/);
  assert.match(page, /stopped early \(s\)/);
});
