// --request-cancellation-rate / --request-cancellation-delay against the simulator (real sockets, a real bench
// child process): the share chosen is within a binomial tolerance of the rate, every chosen request still
// streaming at its delay is cancelled no earlier than the delay after its send, the gateway in the middle and the
// server see a client that left, the cancelled are in no latency figure nor in vLLM's completed or failed, the same
// --seed chooses the same requests and leaves vLLM's seeded schedule as it was, rate 0 chooses none, and bad values
// are refused with exit 2.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { runCli } from '../helpers/run-cli.js';
import { bench, cleanEnv, scratchDir } from './helpers/bench-cli.js';
import { exactTiming } from './helpers/bench-fixtures.js';

// 20 ms to the first token, then 10 ms a token: a 40-token answer ends 410 ms after the server got it, long after
// the 150 ms delay, so every chosen request is still streaming when its delay passes.
const TTFT_MS = 20;
const ITL_MS = 10;
const OUTPUT_TOKENS = 40;
const ANSWER_MS = TTFT_MS + (OUTPUT_TOKENS - 1) * ITL_MS;
const DELAY_S = 0.15;
const RATE_PERCENT = 30;

let sim: RunningSimulator;
let gateway: TestGateway;

before(async () => {
  sim = await startSimulator({ seed: 11, timing: exactTiming(TTFT_MS, ITL_MS) });
  gateway = await startGateway({ upstreams: [{ name: 'sim', baseUrl: sim.url, keyless: true }] });
});
after(async () => {
  await gateway.close();
  await sim.close();
});

interface SavedRecord {
  index: number;
  intendedOffsetMs: number;
  promptTokens: number;
  outcome: string;
  sentAtMs: number | null;
  lastTokenMs: number | null;
  cancelDelayMs?: number;
  cancelledAtMs?: number;
}

// biome-ignore lint/suspicious/noExplicitAny: the result JSON as read back, indexed freely by the assertions
type Json = Record<string, any>;

function args(url: string, dir: string, prompts: number, extra: string[]): string[] {
  return [
    '--base-url',
    url,
    '--dataset-name',
    'random',
    '--random-input-len',
    '16',
    '--random-output-len',
    String(OUTPUT_TOKENS),
    '--ignore-eos',
    '--num-prompts',
    String(prompts),
    '--request-rate',
    '100',
    '--disable-tqdm',
    '--no-server-metrics',
    '--save-detailed',
    '--result-dir',
    dir,
    '--result-filename',
    'run.json',
    ...extra,
  ];
}

function saved(dir: string): { json: Json; records: SavedRecord[] } {
  const json = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as Json;
  const records = readFileSync(join(dir, 'run.records.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as SavedRecord)
    .sort((a, b) => a.index - b.index);
  return { json, records };
}

/** The gateway's records of the run's n requests (bench also asks the gateway for its models, unprefixed). */
async function gatewayRecordsOf(prefix: string, n: number) {
  for (let total = n; ; total++) {
    const ours = (await gateway.recordsAfter(total)).filter((g) => g.requestId.startsWith(prefix));
    if (ours.length >= n) return ours;
  }
}

const cancelFlags = (rate: number, seed: number): string[] => [
  '--request-cancellation-rate',
  String(rate),
  '--request-cancellation-delay',
  String(DELAY_S),
  '--seed',
  String(seed),
];

test('a share of the requests is cancelled at its delay, through the gateway, counted apart and in no figure', async () => {
  const n = 200;
  const dir = scratchDir();
  const prefix = `cancel-${Date.now()}-`;
  const run = await bench(
    args(gateway.url, dir, n, [
      ...cancelFlags(RATE_PERCENT, 3),
      '--request-id-prefix',
      prefix,
      '--percentile-metrics',
      'ttft,e2el',
      '--metric-percentiles',
      '1,99',
    ]),
    cleanEnv(),
  );
  assert.equal(run.code, 0, run.stderr);
  const { json, records } = saved(dir);
  assert.equal(records.length, n, 'every request has its record');

  // Chosen independently with p = 30%: the count is binomial. 4 standard deviations either side (a seed outside
  // it has odds of about 1 in 16,000).
  const chosen = records.filter((r) => r.cancelDelayMs !== undefined);
  const p = RATE_PERCENT / 100;
  const sd = Math.sqrt(n * p * (1 - p));
  assert.ok(
    Math.abs(chosen.length - n * p) <= 4 * sd,
    `${chosen.length} chosen of ${n}, expected ${n * p} +- ${(4 * sd).toFixed(1)}`,
  );
  // Every answer streams for ANSWER_MS, far past the delay: every chosen request is cancelled, none else is.
  const cancelled = records.filter((r) => r.outcome === 'cancelled');
  assert.deepEqual(
    cancelled.map((r) => r.index),
    chosen.map((r) => r.index),
  );
  for (const r of cancelled) {
    assert.equal(r.cancelDelayMs, DELAY_S * 1000);
    // Measured on the client's monotonic clock from the send (which precedes the write the delay counts from).
    assert.ok(
      (r.cancelledAtMs ?? 0) >= DELAY_S * 1000,
      `request ${r.index} cancelled ${r.cancelledAtMs} ms after its send, before its ${DELAY_S * 1000} ms delay`,
    );
    // The server saw the client leave before the answer's end.
    const truth = sim.truth(`${prefix}${r.index}`);
    assert.equal(truth?.cancelled, true, `the simulator saw request ${r.index} cancelled`);
    assert.ok((truth?.completionTokens ?? OUTPUT_TOKENS) < OUTPUT_TOKENS);
  }
  assert.ok(
    records.filter((r) => r.outcome !== 'cancelled').every((r) => r.outcome === 'ok'),
    'the others completed',
  );

  // The gateway in the middle recorded each cancelled request as a client that left.
  const gatewayRecords = await gatewayRecordsOf(prefix, n);
  const byId = new Map(gatewayRecords.map((g) => [g.requestId, g.outcome]));
  for (const r of records) {
    assert.equal(byId.get(`${prefix}${r.index}`), r.outcome === 'cancelled' ? 'client_abort' : 'ok');
  }

  // vLLM's completed and failed leave the cancelled out; so does every latency figure. A cancelled request's E2EL
  // would be its ~150 ms to the last token before the cut; every completed one's is at least the answer's 410 ms.
  assert.equal(json['completed'], n - cancelled.length);
  assert.equal(json['failed'], 0);
  assert.ok(
    json['p1_e2el_ms'] >= ANSWER_MS,
    `p1 E2EL ${json['p1_e2el_ms']} ms: a cancelled request is among the latencies`,
  );
  assert.equal(json['tokenmeter']['success_rate'], 1);
  assert.deepEqual(json['tokenmeter']['cancellation'], {
    rate_percent: RATE_PERCENT,
    delay_s: DELAY_S,
    chosen: chosen.length,
    cancelled: cancelled.length,
    ended_before_delay: 0,
  });
  // vLLM's per-request lists keep every request (an error in `errors`), ours say which were cancelled and when.
  assert.equal(json['errors'].length, n);
  const outcomes = json['tokenmeter']['outcomes'] as string[];
  assert.equal(outcomes.filter((o) => o === 'cancelled').length, cancelled.length);
  for (const r of cancelled) {
    assert.match(json['errors'][r.index], /cancelled as planned 150 ms after it was written/);
    assert.equal(json['tokenmeter']['cancelled_at_ms'][r.index], r.cancelledAtMs);
  }
  assert.match(
    run.stdout,
    new RegExp(
      `={50}\\nCancelled requests: ${cancelled.length} \\(of ${chosen.length} chosen at 30%, 0.15 s after each was written; 0 ended before their delay\\)`,
    ),
  );
  assert.match(run.stdout, new RegExp(`Successful requests:\\s+${n - cancelled.length}\\s`));
  assert.match(run.stdout, /Failed requests:\s+0\s/);
});

test('the same --seed cancels the same requests and leaves the seeded schedule and prompts as they were', async () => {
  const n = 60;
  const runs: SavedRecord[][] = [];
  for (const extra of [cancelFlags(50, 7), cancelFlags(50, 7), cancelFlags(50, 8), ['--seed', '7']]) {
    const dir = scratchDir();
    const run = await bench(args(sim.url, dir, n, extra), cleanEnv());
    assert.equal(run.code, 0, run.stderr);
    runs.push(saved(dir).records);
  }
  const [first, again, otherSeed, without] = runs as [
    SavedRecord[],
    SavedRecord[],
    SavedRecord[],
    SavedRecord[],
  ];
  const chosenOf = (records: SavedRecord[]): number[] =>
    records.filter((r) => r.cancelDelayMs !== undefined).map((r) => r.index);
  assert.ok(chosenOf(first).length > 0);
  assert.deepEqual(chosenOf(again), chosenOf(first), 'same seed, same requests chosen');
  assert.notDeepEqual(chosenOf(otherSeed), chosenOf(first), 'another seed chooses others');
  // The cancellation draws are a stream of their own: vLLM's arrival gaps and prompt lengths for seed 7 are the
  // run's with no cancellation at all.
  assert.deepEqual(
    first.map((r) => r.intendedOffsetMs),
    without.map((r) => r.intendedOffsetMs),
  );
  assert.deepEqual(
    first.map((r) => r.promptTokens),
    without.map((r) => r.promptTokens),
  );
  assert.equal(chosenOf(without).length, 0);
});

test('cancellations are no errors: neither --max-error-rate nor the success floor reads them as failures', async () => {
  const dir = scratchDir();
  // Half the requests cancelled: as failures they would be a 50% error rate in every window, over the 20% allowed,
  // and a 50% success rate, under the 90% floor.
  const run = await bench(
    args(sim.url, dir, 150, [...cancelFlags(50, 5), '--max-error-rate', '0.2', '--stop-window', '1']),
    cleanEnv(),
  );
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.doesNotMatch(run.stdout, /Stopped early/);
  const { json, records } = saved(dir);
  const cancelled = records.filter((r) => r.outcome === 'cancelled').length;
  assert.ok(cancelled >= 50, `${cancelled} cancelled`);
  assert.equal(records.length, 150);
  assert.equal(json['tokenmeter']['early_stop'], undefined);
  assert.ok(json['tokenmeter']['thresholds'].every((c: Json) => c['passed'] === true));
});

test("shards split one plan, and merge says what became of it: the shards' counts summed, the line printed", async () => {
  const n = 40;
  const shardDirs = [scratchDir(), scratchDir()];
  const shards: Json[] = [];
  for (const [i, dir] of shardDirs.entries()) {
    const run = await bench(args(sim.url, dir, n, [...cancelFlags(50, 3), '--shard', `${i}/2`]), cleanEnv());
    assert.equal(run.code, 0, run.stderr);
    shards.push(saved(dir).json['tokenmeter']['cancellation']);
  }
  const mergedDir = scratchDir();
  const merge = await runCli(
    ['merge', ...shardDirs.map((dir) => join(dir, 'run.json')), '--save-result', '--result-dir', mergedDir],
    cleanEnv(),
  );
  assert.equal(merge.code, 0, merge.stderr);
  const sum = (key: string): number => shards.reduce((total, shard) => total + (shard[key] as number), 0);
  assert.ok(sum('cancelled') > 0);
  assert.match(
    merge.stdout,
    new RegExp(
      `Cancelled requests: ${sum('cancelled')} \\(of ${sum('chosen')} chosen at 50%, ${DELAY_S} s after`,
    ),
  );
  const [file] = readdirSync(mergedDir).filter((name) => name.endsWith('.json'));
  const merged = JSON.parse(readFileSync(join(mergedDir, file as string), 'utf8')) as Json;
  assert.deepEqual(merged['tokenmeter']['cancellation'], {
    rate_percent: 50,
    delay_s: DELAY_S,
    chosen: sum('chosen'),
    cancelled: sum('cancelled'),
    ended_before_delay: sum('ended_before_delay'),
  });
  assert.equal(merged['completed'] + merged['failed'] + sum('cancelled'), n);
});

test('rate 0 chooses none', async () => {
  const dir = scratchDir();
  const run = await bench(args(sim.url, dir, 20, cancelFlags(0, 1)), cleanEnv());
  assert.equal(run.code, 0, run.stderr);
  const { json, records } = saved(dir);
  assert.ok(records.every((r) => r.outcome === 'ok' && r.cancelDelayMs === undefined));
  assert.equal(json['tokenmeter']['cancellation']['chosen'], 0);
  assert.match(run.stdout, /Cancelled requests: 0 \(of 0 chosen at 0%/);
});

test('bad values are refused before anything is sent, exit 2', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['--request-cancellation-rate', '101'], /--request-cancellation-rate must be at most 100 \(got 101\)/],
    [['--request-cancellation-rate', '-5'], /--request-cancellation-rate must be at least 0 \(got -5\)/],
    [['--request-cancellation-rate', 'ten'], /--request-cancellation-rate must be a number \(got 'ten'\)/],
    [
      ['--request-cancellation-rate', '10', '--request-cancellation-delay', '-1'],
      /--request-cancellation-delay must be at least 0 \(got -1\)/,
    ],
    [
      ['--request-cancellation-delay', '0.5'],
      /--request-cancellation-delay needs --request-cancellation-rate/,
    ],
    [
      ['--request-cancellation-rate', '10', '--engine', 'closed-loop'],
      /--request-cancellation-rate does not work with --engine closed-loop: autocannon gives no way to cancel one request/,
    ],
  ];
  for (const [i, [flags, message]] of cases.entries()) {
    const prefix = `refused-${i}-`;
    const run = await bench(
      ['--base-url', sim.url, '--num-prompts', '5', '--request-id-prefix', prefix, ...flags],
      cleanEnv(),
    );
    assert.equal(run.code, 2, `${flags.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
    assert.equal(sim.truth(`${prefix}0`), undefined, 'nothing was sent');
  }
});
