// --duration through the real `tokenmeter bench` against the simulator: sending stops at the deadline (no request
// is due at or after it, none waiting for a concurrency slot leaves after it), requests in flight then finish, and
// the run ends within one request's time of it; a typed --num-prompts caps the run when it is reached first.
// Bounds come from the run's own records, not sleeps.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cycleRequests } from '../../loadgen/bench/prepare-requests.js';
import type { RequestRecord } from '../../loadgen/record.js';
import { EXIT_OK } from '../../src/cli/command.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import type { CliResult } from '../helpers/run-cli.js';
import { bench, cleanEnv, scratchDir } from './helpers/bench-cli.js';
import { chatRequests, exactTiming } from './helpers/bench-fixtures.js';

/** Between the last record's end and the end the engine stamps (the record is built and handed over first):
 *  measured at 0.1-0.3 ms over eight runs on the 2-core box; 25 ms leaves room for a loaded machine. */
const END_STAMP_SLACK_MS = 25;

let sim: RunningSimulator;

before(async () => {
  // About 30 ms a request (20 ms to the first token, 5 tokens 2 ms apart).
  sim = await startSimulator({ seed: 2, timing: exactTiming(20, 2) });
});
after(() => sim.close());

interface DurationRun {
  readonly cli: CliResult;
  readonly records: RequestRecord[];
  readonly durationMs: number;
}

async function runFor(extra: string[]): Promise<DurationRun> {
  const dir = scratchDir();
  const cli = await bench(
    [
      '--base-url',
      sim.url,
      '--sharegpt-output-len',
      '5',
      '--disable-tqdm',
      '--save-result',
      '--result-dir',
      dir,
      '--result-filename',
      'result.json',
      '--records-file',
      join(dir, 'records.jsonl'),
      ...extra,
    ],
    cleanEnv(),
  );
  assert.equal(cli.code, EXIT_OK, cli.stderr);
  const records = readFileSync(join(dir, 'records.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RequestRecord);
  const json = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as { duration: number };
  return { cli, records, durationMs: json.duration * 1000 };
}

/** When a request's last byte came, as far as its record says (last token, else first byte, else its send). */
function endOf(record: RequestRecord): number {
  return (record.sentAtMs ?? 0) + (record.lastTokenMs ?? record.ttfbMs ?? 0);
}

test('at a fixed rate, nothing due at or after the deadline is sent and the run ends when the last request does', async () => {
  // Constant gaps (burstiness inf) at 20 req/s: requests are due at 50, 100, ... ms, so exactly 30 fall before
  // 1520 ms (1500 is the last).
  const deadlineMs = 1520;
  const run = await runFor(['--duration', '1.52s', '--request-rate', '20', '--burstiness', 'inf']);
  assert.equal(run.records.length, 30);
  assert.ok(run.records.every((r) => r.outcome === 'ok'));
  // Due before the deadline; a send may trail its due time by the scheduler's lag (recorded), as in any run.
  const lastDue = Math.max(...run.records.map((r) => r.intendedOffsetMs));
  assert.ok(lastDue < deadlineMs, `last due at ${lastDue} ms`);
  const lastEnd = Math.max(...run.records.map(endOf));
  assert.ok(run.durationMs >= lastEnd - 1, `the run lasted until its last request ended (${run.durationMs})`);
  assert.ok(
    run.durationMs <= lastEnd + END_STAMP_SLACK_MS,
    `and no longer (${run.durationMs} vs ${lastEnd})`,
  );
  assert.match(run.cli.stdout, /^Duration: sending stopped at --duration 1\.52 s; 30 requests sent/m);
});

test('at an infinite rate under --max-concurrency, sending goes on until the deadline and stops there', async () => {
  const deadlineMs = 1000;
  const run = await runFor([
    '--duration',
    '1s',
    '--request-rate',
    'inf',
    '--max-concurrency',
    '2',
    '--num-prompts',
    '500',
  ]);
  const sent = run.records.map((r) => r.sentAtMs ?? Number.POSITIVE_INFINITY);
  const lastSent = Math.max(...sent);
  const longest = Math.max(...run.records.map((r) => endOf(r) - (r.sentAtMs ?? 0)));
  assert.ok(run.records.length < 500, `stopped by time, not by the cap (${run.records.length})`);
  assert.ok(lastSent < deadlineMs, `nothing sent at or after the deadline (last at ${lastSent} ms)`);
  // Two slots free up at least once per request time: a send came within one of those of the deadline.
  assert.ok(
    lastSent >= deadlineMs - longest - END_STAMP_SLACK_MS,
    `kept sending until then (${lastSent} ms)`,
  );
  assert.ok(
    run.durationMs <= deadlineMs + longest + END_STAMP_SLACK_MS,
    `ended on time (${run.durationMs} ms)`,
  );
  assert.equal(new Set(run.records.map((r) => r.index)).size, run.records.length, 'one record per request');
});

test('a typed --num-prompts reached first ends the run before the deadline', async () => {
  const run = await runFor(['--duration', '30s', '--request-rate', '50', '--num-prompts', '10']);
  assert.equal(run.records.length, 10);
  assert.ok(run.durationMs < 30_000, `did not wait for the deadline (${run.durationMs} ms)`);
  assert.match(
    run.cli.stdout,
    /^Duration: --num-prompts 10 reached before --duration 30 s; 10 requests sent/m,
  );
});

test('a dataset cycled for a long run: each request its own index and id, the bodies shared', () => {
  const prepared = chatRequests(3, 5, 'x-');
  const cycled = cycleRequests(prepared, 7, 'run-');
  assert.deepEqual(
    cycled.map((r) => [r.index, r.requestId]),
    Array.from({ length: 7 }, (_, i) => [i, `run-${i}`]),
  );
  assert.ok(cycled.every((r, i) => r.body === prepared[i % 3]?.body));
  assert.deepEqual(cycleRequests(prepared, 2, 'x-'), prepared.slice(0, 2));
});
