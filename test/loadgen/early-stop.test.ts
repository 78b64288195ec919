// --stop-on-saturation and --max-error-rate against the simulator: an overloaded run stops within its window and
// one interval of its first completion, with its report, its marked result JSON and exit 4; a run whose requests
// fail stops on the error rate. Real runs, bounded: the overload would otherwise take about a minute to serve.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { bench, cleanEnv, scratchDir } from './helpers/bench-cli.js';

// 2 seats, 20 ms + 19 x 5 ms per answer: about 17 req/s. Offered: 100 req/s for 10 s.
let sim: RunningSimulator;
let failing: RunningSimulator;

before(async () => {
  const timing = { ttftMs: 20, itlMs: 5, jitter: 0, prefillMsPerToken: 0, maxNumSeqs: 2, batchSlowdown: 0 };
  sim = await startSimulator({ seed: 5, timing });
  failing = await startSimulator({
    seed: 5,
    timing: { ...timing, maxNumSeqs: 64 },
    faults: { errorRate: 0.5 },
  });
});
after(async () => {
  await sim.close();
  await failing.close();
});

const WINDOW_S = 2;
const INTERVAL_S = 0.25;

function args(url: string, dir: string, extra: string[]): string[] {
  return [
    '--base-url',
    url,
    '--dataset-name',
    'random',
    '--random-input-len',
    '16',
    '--random-output-len',
    '20',
    '--ignore-eos',
    '--num-prompts',
    '1000',
    '--request-rate',
    '100',
    '--disable-tqdm',
    '--save-result',
    '--result-dir',
    dir,
    '--stop-window',
    String(WINDOW_S),
    '--server-metrics-interval',
    String(INTERVAL_S),
    ...extra,
  ];
}

// biome-ignore lint/suspicious/noExplicitAny: the result JSON as read back, indexed freely by the assertions
type Json = Record<string, any>;

interface SavedRecord {
  sentAtMs: number | null;
  lastTokenMs: number | null;
  outcome: string;
}

function saved(dir: string): { json: Json; records: SavedRecord[] } {
  const file = readdirSync(dir).find((f) => f.endsWith('.json'));
  assert.ok(file !== undefined, `no result file in ${dir}`);
  const json = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Json;
  const recordsFile = join(dir, json['tokenmeter']['records_file']);
  const records = readFileSync(recordsFile, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as SavedRecord);
  return { json, records };
}

test('--stop-on-saturation stops an overloaded run within the window plus one interval, saved and marked, exit 4', async () => {
  const dir = scratchDir();
  const run = await bench(args(sim.url, dir, ['--stop-on-saturation']), cleanEnv());
  assert.equal(run.code, 4, run.stderr);
  assert.match(run.stdout, /Stopped early \(--stop-on-saturation\) at [\d.]+ s: /);
  // Either side may see it first: the client (fewer finished than due) or the server (its waiting queue).
  assert.match(
    run.stdout,
    /requests were due and \d+ finished: achieved [\d.]+ req\/s of [\d.]+ offered|the server's waiting queue grew from \d+ to \d+ requests over the last 2 s and never fell/,
  );
  const { json, records } = saved(dir);
  const stop = json['tokenmeter']['early_stop'];
  assert.equal(stop.reason, 'saturation');
  assert.equal(stop.window_s, WINDOW_S);
  if ('achieved_rps' in stop.figures) assert.ok(stop.figures.achieved_rps < 0.9 * stop.figures.offered_rps);
  else assert.ok(stop.figures.waiting_to - stop.figures.waiting_from >= 5);
  // The client's window opens at the first completion, and the rules are checked every interval: the latest
  // either can fire is then. The server's fires once its samples span 80% of a window.
  const firstFinishS = Math.min(
    ...records.flatMap((r) =>
      r.sentAtMs === null || r.lastTokenMs === null ? [] : [(r.sentAtMs + r.lastTokenMs) / 1000],
    ),
  );
  const latest = firstFinishS + WINDOW_S + INTERVAL_S;
  // The check runs on a timer: allow it one more interval of lateness on a loaded machine.
  assert.ok(stop.at_s <= latest + INTERVAL_S, `stopped at ${stop.at_s} s, latest ${latest.toFixed(2)} s`);
  assert.ok(stop.at_s >= 0.8 * WINDOW_S, `not before a window's worth of evidence (${stop.at_s} s)`);
  // Every request sent has its record; far fewer than planned were sent.
  assert.ok(records.length < 1000 && records.length === json['completed'] + json['failed']);
  assert.ok(
    records.some((r) => r.outcome === 'client_abort'),
    'those in flight were cancelled',
  );
});

test('--max-error-rate stops a run whose requests fail, with the numbers', async () => {
  const dir = scratchDir();
  const run = await bench(args(failing.url, dir, ['--max-error-rate', '0.2']), cleanEnv());
  assert.equal(run.code, 4, run.stderr);
  assert.match(
    run.stdout,
    /Stopped early \(--max-error-rate\) at [\d.]+ s: \d+% of the requests that finished in the last 2 s failed \(\d+ of \d+\), over --max-error-rate 0.2/,
  );
  const stop = saved(dir).json['tokenmeter']['early_stop'];
  assert.equal(stop.reason, 'error_rate');
  assert.ok(stop.figures.error_rate > 0.2);
});
