// `sweep --slo ... --search concurrency` and `sweep --concurrencies` against a simulator whose limit is known: 4
// seats (--max-num-seqs 4), each answer planned at 20 ms to the first token and 4 x 20 ms after, no jitter. Up to 4
// in flight nothing waits for a seat and TTFT stays near 20 ms; with 5 or more, a request sent while every seat is
// held waits for one (up to 100 ms), so a p90 TTFT SLO of 60 ms breaks from 5 on. The search grows 1, 2, 4, 8,
// bisects 6 then 5, and stops with the bracket 1 wide: the concurrency found must be within one step of 4, and the
// simulator's own truth (its queue time per request) must show no waiting at the concurrency found and waiting one
// step above it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/run-cli.js';
import { cleanEnv, scratchDir } from './helpers/bench-cli.js';

const SEATS = 4;
const PREFIX = 'slo-conc-';

let sim: RunningSimulator;

before(async () => {
  sim = await startSimulator({
    seed: 12,
    timing: { ttftMs: 20, itlMs: 20, jitter: 0, prefillMsPerToken: 0, maxNumSeqs: SEATS, batchSlowdown: 0 },
  });
});
after(() => sim.close());

/** Small requests, short levels: the whole file stays well under 30 s on the shared 2-core box. */
const WORKLOAD = [
  '--dataset-name',
  'random',
  '--random-input-len',
  '16',
  '--random-output-len',
  '5',
  '--ignore-eos',
  '--num-prompts',
  '25',
  '--level-seconds',
  '2',
  '--disable-tqdm',
];

interface Capacity {
  searched: string;
  capacity_concurrency: number | null;
  broke_at_concurrency: number | null;
  broke_first: string | null;
  achieved_rps: number | null;
  achieved_rps_interval: { low: number; high: number } | null;
  figures: Array<{ slo: string; value: number | null; interval: { low: number; high: number } | null }>;
  trials: Array<{ concurrency: number; phase: string; held: boolean }>;
  sentence: string;
}

test('the SLO search over concurrency finds the seats within one step, with its interval and the levels tried', async () => {
  const dir = scratchDir();
  const run = await runCli(
    [
      'sweep',
      '--base-url',
      sim.url,
      ...WORKLOAD,
      '--slo',
      'ttft_p90 < 60ms',
      '--search',
      'concurrency',
      '--result-dir',
      dir,
      '--request-id-prefix',
      PREFIX,
      '--html',
      join(dir, 'sweep.html'),
    ],
    cleanEnv(),
  );
  assert.equal(run.code, 0, run.stderr);
  const summary = JSON.parse(readFileSync(join(dir, 'sweep-summary.json'), 'utf8')) as {
    swept: string;
    slo_capacity: Capacity;
    levels: Array<{ offered_rate: number | string; max_concurrency: number | null }>;
  };
  const c = summary.slo_capacity;
  assert.equal(summary.swept, 'concurrency');
  assert.equal(c.searched, 'concurrency');
  assert.ok(c.capacity_concurrency !== null && c.broke_at_concurrency !== null, c.sentence);
  assert.ok(Math.abs(c.capacity_concurrency - SEATS) <= 1, c.sentence);
  // Bisected over whole numbers down to a bracket one wide.
  assert.equal(c.broke_at_concurrency - c.capacity_concurrency, 1, c.sentence);
  assert.deepEqual(
    c.trials.filter((t) => t.phase === 'grow').map((t) => t.concurrency),
    [1, 2, 4, 8].slice(0, c.trials.filter((t) => t.phase === 'grow').length),
  );
  assert.ok(c.trials.every((t) => Number.isInteger(t.concurrency)));
  // Every level ran at rate inf with its own cap.
  assert.ok(summary.levels.every((l) => l.offered_rate === 'inf' && l.max_concurrency !== null));
  // The simulator's truth: at the concurrency found, at most one request in ten waited for a seat (as the p90
  // SLO allows); one step above, more did.
  const waited = (concurrency: number): { waiting: number; total: number } => {
    const level = c.trials.findIndex((t) => t.concurrency === concurrency);
    let waiting = 0;
    let total = 0;
    for (let i = 0; ; i++) {
      const truth = sim.truth(`${PREFIX}L${level}-${i}`);
      if (truth === undefined) break;
      total++;
      if ((truth.queueMs ?? 0) > 20) waiting++;
    }
    return { waiting, total };
  };
  const at = waited(c.capacity_concurrency);
  const above = waited(c.broke_at_concurrency);
  assert.ok(at.total >= 20 && above.total >= 20, `${at.total}, ${above.total} truths`);
  assert.ok(at.waiting / at.total <= 0.1, `${at.waiting}/${at.total} waited at ${c.capacity_concurrency}`);
  if (!/^kept up/.test(c.broke_first ?? '')) {
    assert.ok(
      above.waiting / above.total > 0.1,
      `${above.waiting}/${above.total} waited at ${c.broke_at_concurrency}`,
    );
  }
  assert.match(c.broke_first ?? '', /^ttft_p90 < 60ms \([\d.]+\)$|^kept up/);
  const achieved = c.achieved_rps as number;
  const interval = c.achieved_rps_interval;
  assert.ok(
    interval !== null && interval.low <= achieved && achieved <= interval.high,
    JSON.stringify(interval),
  );
  assert.ok(c.figures[0]?.interval !== null, JSON.stringify(c.figures));
  assert.match(
    run.stdout,
    /^Capacity within ttft_p90 < 60ms: concurrency \d+, the highest concurrency tried where every SLO held \(achieved [\d.]+ req\/s, 95% CI [\d.]+-[\d.]+; ttft_p90 [\d.]+, 95% CI/m,
  );
  assert.match(run.stdout, /Levels tried: concurrency 1 held, concurrency 2 held, /);
  assert.match(run.stdout, /^ *concurrency +requests/m);
  const page = readFileSync(join(dir, 'sweep.html'), 'utf8');
  assert.match(page, /SLO capacity/);
  assert.match(page, /concurrency \(--max-concurrency, rate inf\)/);
});

test('fixed concurrency levels give a table by concurrency, each level steady at rate inf', async () => {
  const dir = scratchDir();
  const run = await runCli(
    ['sweep', '--base-url', sim.url, ...WORKLOAD, '--concurrencies', '2,4', '--result-dir', dir],
    cleanEnv(),
  );
  assert.equal(run.code, 0, run.stderr);
  const rows = run.stdout.split('\n').filter((line) => /^ *[24] {2}/.test(line));
  assert.equal(rows.length, 2, run.stdout);
  assert.match(run.stdout, /^ *concurrency +requests +success/m);
  const summary = JSON.parse(readFileSync(join(dir, 'sweep-summary.json'), 'utf8')) as {
    swept: string;
    levels: Array<{
      offered_rate: number | string;
      max_concurrency: number;
      achieved_rate: number;
      warmup_requests: number;
      steady_requests: number;
    }>;
  };
  assert.equal(summary.swept, 'concurrency');
  assert.deepEqual(
    summary.levels.map((l) => [l.offered_rate, l.max_concurrency]),
    [
      ['inf', 2],
      ['inf', 4],
    ],
  );
  for (const level of summary.levels) {
    // A warm-up cut from the window laid on the send times, and the seats' rate: N / 100 ms at most.
    assert.ok(level.warmup_requests > 0 && level.steady_requests >= 20, JSON.stringify(level));
    assert.ok(level.achieved_rate <= level.max_concurrency * 10 * 1.05, JSON.stringify(level));
  }
  // Nothing fell behind (a closed loop is sent what it completes), and the knee sentence says what that means.
  assert.match(run.stdout, /^No knee by the follow rule: at every concurrency up to concurrency 4 /m);
  // Twice the seats complete more (nothing queues up to 4).
  assert.ok((summary.levels[1]?.achieved_rate ?? 0) > (summary.levels[0]?.achieved_rate ?? 0) * 1.5);
});

test('flag combinations a concurrency sweep cannot mean are refused with exit 2', async () => {
  const refused = async (args: string[], message: RegExp): Promise<void> => {
    const run = await runCli(['sweep', '--base-url', sim.url, ...args], cleanEnv());
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
  };
  await refused(['--search', 'concurrency'], /--search concurrency needs --slo EXPR/);
  await refused(
    ['--concurrencies', '1,2', '--slo', 'ttft_p99 < 1s'],
    /--slo searches for the concurrency itself: leave out --concurrencies and give --search concurrency/,
  );
  await refused(['--concurrencies', '1,2', '--rates', '1,2'], /moves the rate or the concurrency, not both/);
  await refused(
    ['--concurrencies', '1,2', '--max-concurrency', '4'],
    /each concurrency level sets its own --max-concurrency/,
  );
  await refused(['--concurrencies', '0,2'], /--concurrencies takes whole numbers from 1 to 4096/);
  await refused(['--concurrencies', '1.5'], /--concurrencies takes whole numbers/);
  await refused(
    ['--slo', 'ttft_p99 < 1s', '--search', 'tokens'],
    /--search takes rate, concurrency or sessions/,
  );
  await refused(['--search', 'rate'], /--search says what --slo moves/);
});
