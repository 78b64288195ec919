// --max-cost and --max-total-tokens stop a run cleanly: `tokenmeter bench` against the simulator, every answer
// exactly --sharegpt-output-len tokens (--ignore-eos), so what each request costs is known. The partial run must
// exit 3, say why it stopped, and leave a result JSON and records that add up: every sent request has one record,
// requests never sent have none and are counted as not sent (not as failures), and the cancelled ones of
// --on-limit cancel are the client_abort records.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { RequestRecord } from '../../loadgen/record.js';
import { EXIT_BUDGET_STOPPED } from '../../src/cli/command.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { bench, cleanEnv, scratchDir } from '../loadgen/helpers/bench-cli.js';
import { exactTiming } from '../loadgen/helpers/bench-fixtures.js';

const PLANNED = 40;

let sim: RunningSimulator;

before(async () => {
  // 5 ms per token: a 50-token answer streams for a quarter of a second, a 400-token one for two.
  sim = await startSimulator({ seed: 2, timing: exactTiming(5, 5) });
});
after(() => sim.close());

interface BudgetStopJson {
  limit: string;
  value: number;
  reached_at: number;
  on_limit: string;
  planned: number;
  sent: number;
  not_sent: number;
  cancelled_in_flight: number;
}

async function stoppedRun(flags: string[]): Promise<{
  stdout: string;
  json: Record<string, unknown>;
  stop: BudgetStopJson;
  records: RequestRecord[];
}> {
  const dir = scratchDir();
  const run = await bench(
    [
      '--base-url',
      sim.url,
      '--num-prompts',
      String(PLANNED),
      // Eight seconds of sending: the limits below are reached within the first two or three.
      '--request-rate',
      '5',
      '--ignore-eos',
      '--disable-tqdm',
      '--save-result',
      '--result-dir',
      dir,
      '--result-filename',
      'run.json',
      ...flags,
    ],
    cleanEnv(),
  );
  assert.equal(run.code, EXIT_BUDGET_STOPPED, run.stderr + run.stdout);
  const json = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as Record<string, unknown>;
  const records = readFileSync(join(dir, 'run.records.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RequestRecord);
  const stop = (json['tokenmeter'] as { budget_stop: BudgetStopJson }).budget_stop;
  // What every stopped run must add up to.
  assert.equal(new Set(records.map((r) => r.index)).size, records.length, 'one record per request');
  assert.ok(
    records.every((r) => r.sentAtMs !== null),
    'requests never sent have no record',
  );
  assert.equal(stop.planned, PLANNED);
  assert.equal(stop.sent, records.length);
  assert.equal(stop.sent + stop.not_sent, PLANNED);
  assert.ok(stop.not_sent >= 1, `the stop left requests unsent (${stop.not_sent})`);
  assert.equal(
    (json['completed'] as number) + (json['failed'] as number),
    records.length,
    "vLLM's completed + failed are the records, the unsent are in neither",
  );
  assert.ok(stop.reached_at >= stop.value);
  return { stdout: run.stdout, json, stop, records };
}

test('--max-cost stops sending at the limit; requests in flight finish (--on-limit finish, the default)', async () => {
  // Input free, output 1000 per million: each 50-token answer costs exactly 0.05, so the third one reaches 0.15.
  const { stdout, json, stop, records } = await stoppedRun([
    '--sharegpt-output-len',
    '50',
    '--price-input',
    '0',
    '--price-output',
    '1000',
    '--max-cost',
    '0.15',
  ]);
  assert.equal(stop.limit, 'max_cost');
  assert.equal(stop.on_limit, 'finish');
  assert.equal(stop.cancelled_in_flight, 0);
  assert.ok(
    records.every((r) => r.outcome === 'ok' && r.outputTokens === 50),
    'everything sent finished',
  );
  assert.equal(json['failed'], 0);
  const cost = (json['tokenmeter'] as { cost: { total_cost: number } }).cost;
  assert.ok(Math.abs(cost.total_cost - 0.05 * records.length) < 1e-12, `cost ${cost.total_cost}`);
  assert.ok(records.length >= 3, 'the limit was reached by the third answer');
  assert.match(
    stdout,
    new RegExp(
      `^Stopped: --max-cost 0\\.15 USD reached \\(0\\.15 USD when it was\\)\\. ${records.length} of ${PLANNED} requests sent, ${stop.not_sent} not sent \\(not failures\\); those in flight finished\\.`,
      'm',
    ),
  );
  assert.match(stdout, /Serving Benchmark Result/);
});

test('--max-total-tokens with --on-limit cancel cuts the requests in flight, recorded as client_abort', async () => {
  // 400-token answers take two seconds: when the first finishes (and passes 100 tokens) about ten are in flight.
  const { stdout, stop, records } = await stoppedRun([
    '--sharegpt-output-len',
    '400',
    '--max-total-tokens',
    '100',
    '--on-limit',
    'cancel',
  ]);
  assert.equal(stop.limit, 'max_total_tokens');
  assert.equal(stop.on_limit, 'cancel');
  const aborted = records.filter((r) => r.outcome === 'client_abort');
  const ok = records.filter((r) => r.outcome === 'ok');
  assert.ok(ok.length >= 1, 'the request that reached the limit finished');
  assert.ok(aborted.length >= 1, `requests in flight were cancelled (${aborted.length})`);
  assert.equal(stop.cancelled_in_flight, aborted.length);
  assert.equal(ok.length + aborted.length, records.length, 'nothing else happened to them');
  assert.match(stdout, new RegExp(`; ${aborted.length} in flight were cancelled \\(client_abort\\)\\.`));
  assert.doesNotMatch(stdout, /Run cost/, 'not priced: no cost row');
});

test('the closed loop stops at a limit too, cancelling what is in flight', async () => {
  // Four connections of 400-token answers: when the first answer finishes, three are in flight.
  const { stop, records } = await stoppedRun([
    '--engine',
    'closed-loop',
    '--max-concurrency',
    '4',
    '--sharegpt-output-len',
    '400',
    '--max-total-tokens',
    '100',
    '--on-limit',
    'cancel',
  ]);
  assert.equal(stop.on_limit, 'cancel');
  const aborted = records.filter((r) => r.outcome === 'client_abort');
  assert.ok(aborted.length >= 1, `requests in flight were cancelled (${aborted.length})`);
  assert.equal(stop.cancelled_in_flight, aborted.length);
});
