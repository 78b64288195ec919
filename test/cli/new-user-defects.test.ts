// What a new user hit (issue 23, items 1-8 and 12), one row each through the real executable against real servers
// on 127.0.0.1: the line they should read, the exit status, and for the doctor that its recheck still fails on a
// missing tokenizer or dataset path. (Item 7, a config saved with a byte order mark, is a row of bad-input.test.ts.)
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { EXIT_BUDGET_STOPPED, EXIT_OK, EXIT_RUN_FAILED, EXIT_USAGE } from '../../src/cli/command.js';
import { DEFAULT_MODEL_NAME } from '../../src/sim/config.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { runCli } from '../helpers/run-cli.js';
import { cleanEnv } from '../loadgen/helpers/bench-cli.js';
import { exactTiming } from '../loadgen/helpers/bench-fixtures.js';
import { sendSteadily } from '../top/helpers/steady-traffic.js';

const dir = mkdtempSync(join(tmpdir(), 'tokenmeter-new-user-'));
let sim: RunningSimulator;

before(async () => {
  sim = await startSimulator({ seed: 23, timing: exactTiming(20, 2) });
});
after(() => sim.close());

const small = ['--dataset-name', 'random', '--random-input-len', '8', '--random-output-len', '4'];

function stderrLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line !== '');
}

test('1: doctor --config --apply fails, and its recheck fails, on a missing tokenizer and dataset path', async () => {
  const config = join(dir, 'bench_config.json');
  // A model the server does not serve: a change the doctor makes, so --apply writes a file and the recheck runs
  // with the change applied. The files are still missing after it.
  writeFileSync(
    config,
    JSON.stringify({
      base_url: sim.url,
      model: 'sim-7b-typo',
      tokenizer: join(dir, 'no-such-model'),
      dataset_path: join(dir, 'no-such-dataset.json'),
    }),
  );
  const res = await runCli(['doctor', '--config', config, '--apply', '--json'], cleanEnv());
  assert.equal(res.code, EXIT_RUN_FAILED, res.stdout + res.stderr);
  const answer = JSON.parse(res.stdout) as {
    ok: boolean;
    checks: Array<{ id: string; status: string; detail: string }>;
    checksAfter: Array<{ id: string; status: string; detail: string }>;
  };
  assert.equal(answer.ok, false);
  for (const checks of [answer.checks, answer.checksAfter]) {
    const tokenizer = checks.find((c) => c.id === 'tokenizer-file');
    const dataset = checks.find((c) => c.id === 'dataset-file');
    assert.equal(tokenizer?.status, 'fail', JSON.stringify(checks));
    assert.match(tokenizer?.detail ?? '', /^--tokenizer .*no-such-model: no such file or folder\./);
    assert.equal(dataset?.status, 'fail');
    assert.match(dataset?.detail ?? '', /^--dataset-path .*no-such-dataset\.json: no such file$/);
  }
  const text = await runCli(['doctor', '--config', config], cleanEnv());
  assert.equal(text.code, EXIT_RUN_FAILED);
  assert.match(text.stdout, /^\[FAIL\] Tokenizer file: --tokenizer .*no-such-model: no such file or folder/m);
  assert.match(text.stdout, /^\[FAIL\] Dataset file: --dataset-path .*no-such-dataset\.json: no such file$/m);
});

test('2: on a fixed-rate run the ETA follows the schedule: elapsed + ETA near the run end on every line', async () => {
  // 40 requests at 8 req/s: the schedule ends near 5 s; each request takes about 30 ms.
  const res = await runCli(
    [
      'bench',
      '--base-url',
      sim.url,
      ...small,
      '--num-prompts',
      '40',
      '--request-rate',
      '8',
      '--burstiness',
      '1000',
      '--no-records',
    ],
    cleanEnv(),
  );
  assert.equal(res.code, EXIT_OK, res.stderr);
  const duration = Number(res.stdout.match(/^Benchmark duration \(s\): +([\d.]+)/m)?.[1]);
  const lines = stderrLines(res.stderr).filter((line) => line.startsWith('progress: '));
  assert.ok(lines.length >= 5, res.stderr);
  for (const line of lines) {
    const match = line.match(/^progress: (\d+)\/40 done .*, ([\d.]+) s, ETA (\d+):(\d\d);/);
    assert.ok(match, line);
    const [done, elapsed, minutes, seconds] = match.slice(1).map(Number) as [number, number, number, number];
    if (done < 4 || done === 40) continue;
    // The ETA is printed in whole seconds, rounded up: a second of slack beside the 10%.
    const predicted = elapsed + minutes * 60 + seconds;
    assert.ok(Math.abs(predicted - duration) <= 0.1 * duration + 1, `${line} (run took ${duration} s)`);
  }
});

test('3: --max-cost far overshot: the stop line warns, with --on-limit cancel and --max-concurrency', async () => {
  // Every request is in flight when the first answer reaches the limit: the run spends many times the budget.
  const res = await runCli(
    [
      'bench',
      '--base-url',
      sim.url,
      ...small,
      '--num-prompts',
      '20',
      '--price-input',
      '0',
      '--price-output',
      '1000',
      '--max-cost',
      '0.004',
      '--no-records',
      '--disable-tqdm',
    ],
    cleanEnv(),
  );
  assert.equal(res.code, EXIT_BUDGET_STOPPED, res.stderr + res.stdout);
  const stop = res.stdout.split('\n').find((line) => line.startsWith('Stopped: '));
  assert.ok(stop, res.stdout);
  assert.match(
    stop,
    /Warning: the run used 0\.\d+ USD in all, \d+\.\d times the limit, .* --on-limit cancel .* --max-concurrency/,
  );
});

test('4: --estimate needs no API key: the variable may be unset, nothing is sent', async () => {
  const res = await runCli(
    [
      'bench',
      '--base-url',
      'http://127.0.0.1:1',
      '--api-key-env',
      'TOKENMETER_TEST_UNSET_KEY',
      ...small,
      '--num-prompts',
      '10',
      '--price-input',
      '1',
      '--price-output',
      '2',
      '--estimate',
    ],
    cleanEnv(),
  );
  assert.equal(res.code, EXIT_OK, res.stderr);
  assert.match(res.stdout, /^estimate: 10 requests, 80 input tokens, up to 40 output tokens/m);
  assert.doesNotMatch(res.stderr, /TOKENMETER_TEST_UNSET_KEY/);
});

test('5: top --url host:port reads its /metrics; the doctor probe and model list are not rows', async (t) => {
  const gateway: TestGateway = await startGateway({
    upstreams: [{ name: 'local', baseUrl: `${sim.url}/v1`, keyless: true }],
  });
  t.after(() => gateway.close());
  // While top takes its two readings: model traffic, and what the doctor sends besides (GET /version, a path no
  // route serves, and GET /v1/models), none of which names a model.
  const traffic = sendSteadily(gateway.url, DEFAULT_MODEL_NAME);
  let probing = true;
  const probes = (async () => {
    while (probing)
      for (const path of ['/version', '/v1/models'])
        await (await request(`${gateway.url}${path}`)).body.text();
  })();
  const hostPort = gateway.url.replace(/^http:\/\//, '');
  const top = await runCli(['top', '--once', '--interval', '1', '--url', hostPort]);
  probing = false;
  await Promise.all([traffic.stop(), probes]);
  assert.equal(top.code, EXIT_OK, top.stderr + top.stdout);
  const lines = top.stdout.trimEnd().split('\n');
  assert.match(lines[1] ?? '', new RegExp(`^gateway ${gateway.url}/metrics {2}\\d+ in flight$`));
  const header = lines.findIndex((line) => line.startsWith('UPSTREAM'));
  assert.ok(header > 0, top.stdout);
  const rows = lines.slice(header + 1, lines.length - 1);
  assert.ok(
    rows.some((row) => row.split(/\s+/)[1] === DEFAULT_MODEL_NAME),
    top.stdout,
  );
  for (const row of rows) assert.doesNotMatch(row, /^\S+\s+none\s/, `no row without a model: ${top.stdout}`);
  assert.match(
    lines.at(-1) ?? '',
    /^\(and \d+\.\d req\/s that named no model: model lists, probes, unrouted paths\)$/,
  );
});

test('6: sweep --shard complains about --max-concurrency only when given, before any header or folder', async () => {
  const folder = join(dir, 'sweep-refused');
  const refused = await runCli(
    [
      'sweep',
      '--base-url',
      sim.url,
      '--shard',
      '0/2',
      '--max-concurrency',
      '1',
      '--rates',
      '5',
      '--result-dir',
      folder,
    ],
    cleanEnv(),
  );
  assert.equal(refused.code, EXIT_USAGE);
  assert.deepEqual(stderrLines(refused.stderr).length, 1, refused.stderr);
  assert.match(refused.stderr, /--max-concurrency 1 is split across 2 shards: give at least 2/);
  assert.equal(existsSync(folder), false, 'no folder made');
  assert.equal(refused.stdout, '');

  const shardedFolder = join(dir, 'sweep-sharded');
  const sharded = await runCli(
    [
      'sweep',
      '--base-url',
      sim.url,
      ...small,
      '--shard',
      '0/2',
      '--rates',
      '20',
      '--num-prompts',
      '8',
      '--disable-tqdm',
      '--result-dir',
      shardedFolder,
    ],
    cleanEnv(),
  );
  assert.equal(sharded.code, EXIT_OK, sharded.stderr);
  assert.match(sharded.stderr, /synchronous probe: \d+ requests one at a time/);
  assert.ok(readdirSync(shardedFolder).includes('sweep-summary.json'));
});

test('8: dataset notes say why entries were dropped, a null entry named as null', async () => {
  // 11 entries: 4 malformed (a null among them), 6 that vLLM's length filter drops, 1 usable.
  const words = (n: number): string => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
  const pair = (prompt: number, reply: number) => ({
    conversations: [
      { from: 'human', value: words(prompt) },
      { from: 'gpt', value: words(reply) },
    ],
  });
  const entries = [
    null,
    { id: 'no-conversations' },
    'text',
    { conversations: [{ from: 'human', value: 7 }] },
    pair(2, 10),
    pair(3, 10),
    pair(2, 20),
    pair(10, 2),
    pair(10, 3),
    pair(1100, 10),
    pair(10, 10),
  ];
  const dataset = join(dir, 'eleven.json');
  writeFileSync(dataset, JSON.stringify(entries));
  const res = await runCli(
    [
      'bench',
      '--base-url',
      sim.url,
      '--dataset-path',
      dataset,
      '--num-prompts',
      '3',
      '--no-records',
      '--disable-tqdm',
    ],
    cleanEnv(),
  );
  assert.equal(res.code, EXIT_OK, res.stderr);
  const lines = stderrLines(res.stderr);
  const malformed = lines.find((line) => line.startsWith('note: skipped 4 malformed entries: '));
  assert.ok(malformed, res.stderr);
  assert.match(malformed, /element 0: null, not an object/);
  assert.ok(
    lines.includes(
      'note: oversampled: only 1 usable entry for 3 requests (of 11 entries: 4 malformed; 6 dropped by ' +
        "vLLM's length filter: 3 prompt too short, 2 reply too short, 1 prompt too long); 2 duplicates added",
    ),
    res.stderr,
  );
});

test('12: a smoke failure: every failure kind counts its requests once, statuses and no-response adding up', async (t) => {
  // Half the requests fail at once with 500 while the others stream slowly: the smoke test stops at the first
  // failure and cuts the rest, some with their 200 already received and some before any answer.
  const faulty = await startSimulator({
    seed: 4,
    timing: exactTiming(400, 50),
    faults: { errorRate: 0.5, errorStatus: 500 },
  });
  t.after(() => faulty.close());
  const res = await runCli(
    ['bench', '--base-url', faulty.url, ...small, '--smoke', '--no-records', '--disable-tqdm'],
    cleanEnv(),
  );
  assert.equal(res.code, EXIT_RUN_FAILED, res.stderr + res.stdout);
  assert.match(res.stdout, /^Smoke test FAILED at request #\d+: http_error \(HTTP 500\)$/m);
  const kinds = [...res.stdout.matchAll(/^([a-z_]+): (\d+) requests? \(([^)]*)\)$/gm)];
  assert.ok(kinds.length > 0, res.stdout);
  for (const [line, , count, statuses] of kinds) {
    const counted = (statuses ?? '')
      .split(', ')
      .map((part) => Number(part.match(/x(\d+)$/)?.[1] ?? Number.NaN))
      .reduce((sum, n) => sum + n, 0);
    assert.equal(counted, Number(count), `the parenthesis adds up to the count: ${line}`);
  }
});
