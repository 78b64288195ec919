// `tokenmeter sweep --rates`: a simulator that runs at most 2 sequences at once, 45 ms each (~44 req/s), keeps up
// with 10 and 20 req/s and not with 200; the sweep prints one row per rate, names the knee between 20 and 200 in a
// sentence, and saves every level plus sweep-summary.json. Near-even arrivals (burstiness 1000) keep 20-request
// levels from reading Poisson clumps as saturation.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/run-cli.js';
import { cleanEnv, scratchDir } from './helpers/bench-cli.js';

let sim: RunningSimulator;

before(async () => {
  sim = await startSimulator({
    seed: 7,
    timing: { ttftMs: 5, itlMs: 2, jitter: 0, prefillMsPerToken: 0, maxNumSeqs: 2, batchSlowdown: 0 },
  });
});
after(() => sim.close());

test('sweep over given rates prints the table, finds the knee, saves every level', async () => {
  const dir = scratchDir();
  const args = [
    'sweep',
    '--base-url',
    sim.url,
    '--rates',
    '10,20,200',
    '--num-prompts',
    '20',
    '--burstiness',
    '1000',
  ];
  const run = await runCli(
    [
      ...args,
      '--dataset-name',
      'random',
      '--random-input-len',
      '16',
      '--random-output-len',
      '20',
      '--ignore-eos',
      '--result-dir',
      dir,
      '--disable-tqdm',
      '--html',
      join(dir, 'sweep.html'),
    ],
    cleanEnv(),
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stdout,
    /rate \(req\/s\)\s+success\s+achieved \(req\/s\)\s+TTFT p50 \(ms\)\s+TTFT p99 \(ms\)\s+TPOT \(ms\)\s+ITL p99 \(ms\)\s+output \(tok\/s\)/,
  );
  assert.match(run.stdout, /The knee lies between 20\.00 req\/s and 200\.00 req\/s/);
  const files = readdirSync(dir);
  assert.equal(
    files.filter((f) => /qps-sim-7b-.*\.json$/.test(f) && !f.endsWith('.records.jsonl')).length,
    3,
  );
  assert.equal(files.filter((f) => f.endsWith('.records.jsonl')).length, 3);
  const summary = JSON.parse(readFileSync(join(dir, 'sweep-summary.json'), 'utf8')) as {
    levels: Array<{ offered_rate: number; success_rate: number }>;
    knee: { last_good_rps: number; first_bad_rps: number };
  };
  assert.deepEqual(
    summary.levels.map((l) => l.offered_rate),
    [10, 20, 200],
  );
  assert.deepEqual([summary.knee.last_good_rps, summary.knee.first_bad_rps], [20, 200]);
  // The summary is what `tokenmeter report` reads: it must find every level and the knee.
  const { sweepFromSummary } = await import('../../loadgen/report/sweep-data.js');
  type JsonObject = Parameters<typeof sweepFromSummary>[1];
  const report = sweepFromSummary('sweep-summary.json', summary as unknown as JsonObject);
  assert.deepEqual(
    report.levels.map((l) => l.offeredRate),
    [10, 20, 200],
  );
  assert.equal(report.knee?.offeredRate, 20);
  const html = readFileSync(join(dir, 'sweep.html'), 'utf8');
  assert.match(html, /<svg/);
  assert.match(run.stderr, /report: .*sweep\.html/);
});
