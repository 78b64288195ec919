// `compare` tells noise from difference on real runs: `tokenmeter bench` (a child process) against in-process
// simulators over loopback sockets, each run saving its result and records file, then `tokenmeter compare --json`.
// Two runs of one seed against one simulator differ only by noise; a simulator decoding three times slower is
// named the slower with intervals that exclude zero; a run through a tokenmeter gateway says so in its result,
// and `compare` warns when runs differ in more than one way; a result from before targets and records files
// still compares, untested.
//
// The simulators' timing is chosen so that requests vary among themselves much more than a loaded machine can
// shift a whole run: prompt lengths spread 32-96 tokens at 0.5 ms each (TTFT 36-68 ms), answers 12-36 tokens,
// and each decoding step 50% jitter plus 10% per extra sequence in the batch. The same-seed assertions cover
// throughput, success, TTFT and E2E latency. TPOT, ITL and TTFB on a loopback simulator vary by a fraction of a
// millisecond from request to request, less than a busy machine moves one whole run against another (seen on the
// shared 2-core machine: median TTFB 2.41 vs 1.45 ms, p99 ITL 12.3 vs 9.3 ms between two same-seed runs), and
// intervals drawn from within each run cannot see drift between runs (docs/reports.md says so).
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Comparison, ComparisonRow } from '../../loadgen/compare/comparison.js';
import { packageVersion } from '../../src/shared/package-version.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { runCli } from '../helpers/run-cli.js';
import { bench, cleanEnv, scratchDir } from '../loadgen/helpers/bench-cli.js';

const timing = (itlMs: number) => ({
  ttftMs: 20,
  prefillMsPerToken: 0.5,
  itlMs,
  jitter: 0.5,
  tokensPerChunk: 1,
  maxNumSeqs: 64,
  batchSlowdown: 0.1,
});

let fast: RunningSimulator;
let slow: RunningSimulator;
let gateway: TestGateway;
const dir = scratchDir();
const env = cleanEnv();

const DATASET = [
  '--dataset-name',
  'random',
  '--random-input-len',
  '64',
  '--random-output-len',
  '24',
  '--random-range-ratio',
  '0.5',
  '--seed',
  '5',
  '--percentile-metrics',
  'ttft,tpot,itl,e2el',
];

/** One saved run; returns the result file's path. */
async function savedRun(name: string, baseUrl: string, load: string[]): Promise<string> {
  const args = ['--base-url', baseUrl, ...DATASET, ...load, '--save-result', '--result-dir', dir];
  const result = await bench([...args, '--result-filename', `${name}.json`, '--disable-tqdm'], env);
  assert.equal(result.code, 0, result.stderr + result.stdout);
  return join(dir, `${name}.json`);
}

async function compareJson(...paths: string[]): Promise<Comparison> {
  const result = await runCli(['compare', '--json', ...paths], env);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as Comparison;
}

function row(comparison: Comparison, key: string): ComparisonRow {
  const found = comparison.rows.find((r) => r.key === key);
  assert.ok(found, `row ${key}`);
  return found;
}

before(async () => {
  fast = await startSimulator({ seed: 1, timing: timing(2) });
  slow = await startSimulator({ seed: 1, timing: timing(6) });
  gateway = await startGateway({ upstreams: [{ name: 'sim', baseUrl: `${slow.url}/v1`, keyless: true }] });
  // A first run warms the simulator's and the client's code paths, so neither measured run carries it.
  await savedRun('warm-up', fast.url, ['--num-prompts', '20', '--request-rate', '40']);
});
after(async () => {
  await gateway.close();
  await fast.close();
  await slow.close();
});

/** On every tested row of two runs, a run is named exactly when the B-A interval (the CI column) excludes 0, and
 *  it is the one that interval favours; an untested row names none (issue 23, item 11). */
function bestFollowsTheDifference(comparison: Comparison, table: string): void {
  for (const r of comparison.rows) {
    if (r.decision === 'untested') assert.equal(r.best, null, `${r.key}: untested names no run\n${table}`);
    if (r.decision !== 'tested') continue;
    const interval = r.deltas[1]?.interval;
    assert.ok(interval, r.key);
    const excludesZero = interval.low > 0 || interval.high < 0;
    assert.equal(
      r.best !== null,
      excludesZero,
      `${r.key}: best ${r.best}, B-A [${interval.low}, ${interval.high}]\n${table}`,
    );
    if (r.best === null) continue;
    const bBetter = r.better === 'lower' ? interval.high < 0 : interval.low > 0;
    assert.equal(r.best, bBetter ? 1 : 0, `${r.key}: the favoured run\n${table}`);
  }
}

test('two runs of the same seed against one simulator: no significant difference', async () => {
  const load = ['--num-prompts', '100', '--request-rate', '40'];
  const first = await savedRun('same-1', fast.url, load);
  const second = await savedRun('same-2', fast.url, load);
  const comparison = await compareJson(first, second);
  const table = (await runCli(['compare', first, second], env)).stdout;
  // Medians, not means: the intervals measure noise within a run, and on a shared machine a load spike during one
  // of the two runs shifts its mean (seen once in a full suite with other work running: a mean latency named a
  // winner) while the medians held; drift between runs is the documented limit (docs/reports.md).
  for (const key of [
    'request_throughput',
    'output_throughput',
    'tokenmeter.success_rate',
    'median_ttft_ms',
    'median_e2el_ms',
  ]) {
    const r = row(comparison, key);
    assert.equal(r.decision, 'tested', `${key} has intervals from both records files\n${table}`);
    assert.deepEqual(
      r.leaders,
      [0, 1].sort((a, b) => r.leaders.indexOf(a) - r.leaders.indexOf(b)),
    );
    assert.equal(r.best, null, `${key}: no winner\n${table}`);
    const d = r.deltas[1];
    assert.ok(
      d?.interval && d.interval.low <= 0 && d.interval.high >= 0,
      `${key}: interval spans 0\n${table}`,
    );
  }
  assert.match(table, /\nRequest throughput \(req\/s\) .* no significant difference\n/);
  bestFollowsTheDifference(comparison, table);
  assert.match(table, /records file same-1\.records\.jsonl/);
  assert.deepEqual(comparison.notes, [], 'same target, same load: nothing to warn about');
});

test('a simulator decoding three times slower: the faster is named, its intervals exclude zero', async () => {
  const load = ['--num-prompts', '60', '--request-rate', 'inf', '--max-concurrency', '4'];
  const before = await savedRun('slow', slow.url, load);
  const afterRun = await savedRun('fast', fast.url, load);
  const comparison = await compareJson(before, afterRun);
  const table = (await runCli(['compare', before, afterRun], env)).stdout;
  for (const [key, faster] of [
    ['request_throughput', 'higher'],
    ['output_throughput', 'higher'],
    ['mean_tpot_ms', 'lower'],
    ['median_itl_ms', 'lower'],
    ['mean_e2el_ms', 'lower'],
  ] as const) {
    const r = row(comparison, key);
    assert.equal(r.best, 1, `${key}: B (fast) is best\n${table}`);
    const interval = r.deltas[1]?.interval;
    assert.ok(interval, key);
    if (faster === 'higher') assert.ok(interval.low > 0, `${key}: B - A > 0 throughout\n${table}`);
    else assert.ok(interval.high < 0, `${key}: B - A < 0 throughout\n${table}`);
    assert.equal(r.deltas[1]?.significant, true);
  }
  assert.match(table, /\nMean TPOT \(ms\) .*\[-\d+\.\d\d, -\d+\.\d\d\]\s+B\n/);
  bestFollowsTheDifference(comparison, table);
  assert.deepEqual(comparison.notes, [
    `base URLs differ: A ${slow.url}/v1/chat/completions, B ${fast.url}/v1/chat/completions`,
  ]);
});

test('through a gateway or direct: the result says which, and compare warns of a second difference', async () => {
  const load = ['--num-prompts', '20', '--request-rate', '40'];
  const direct = await savedRun('direct', fast.url, load);
  const viaGateway = await savedRun('via-gateway', `${gateway.url}/v1`, load);
  const saved = JSON.parse(await readFile(viaGateway, 'utf8')) as { tokenmeter: { target: unknown } };
  assert.deepEqual(saved.tokenmeter.target, {
    base_url: `${gateway.url}/v1/chat/completions`,
    backend: 'openai-chat',
    model: 'tokenmeter/sim-7b',
    gateway_version: packageVersion(),
    tokenmeter_version: packageVersion(),
    host: (JSON.parse(await readFile(direct, 'utf8')) as { tokenmeter: { target: { host: string } } })
      .tokenmeter.target.host,
  });
  // Each engine notes the header: undici's head (open loop), autocannon's raw header list (closed loop).
  const closedLoop = await savedRun('via-gateway-closed', `${gateway.url}/v1`, [
    ...load,
    '--engine',
    'closed-loop',
  ]);
  for (const path of [viaGateway, closedLoop]) {
    const records = await readFile(path.replace(/\.json$/, '.records.jsonl'), 'utf8');
    const lines = records.trim().split('\n');
    assert.equal(lines.length, 20);
    for (const line of lines) assert.equal(JSON.parse(line).gatewayVersion, packageVersion(), path);
  }
  const directRecords = await readFile(direct.replace(/\.json$/, '.records.jsonl'), 'utf8');
  assert.doesNotMatch(directRecords, /gatewayVersion/);

  const comparison = await compareJson(direct, viaGateway);
  assert.deepEqual(comparison.notes.slice(0, 3), [
    'the runs differ in more than one way (base URL, gateway or direct): a difference in the figures cannot be ' +
      'put down to any one of them',
    `base URLs differ: A ${fast.url}/v1/chat/completions, B ${gateway.url}/v1/chat/completions`,
    `paths (through a tokenmeter gateway or direct) differ: A direct, B through tokenmeter gateway ${packageVersion()}`,
  ]);
});

test('a result without target or records file (an earlier version) compares untested, and says why', async () => {
  const current = join(dir, 'same-1.json');
  const old = JSON.parse(await readFile(current, 'utf8')) as { tokenmeter: Record<string, unknown> };
  delete old.tokenmeter['target'];
  delete old.tokenmeter['records_file'];
  const oldPath = join(dir, 'earlier.json');
  await writeFile(oldPath, JSON.stringify(old));

  const comparison = await compareJson(oldPath, current);
  const throughput = row(comparison, 'request_throughput');
  assert.equal(throughput.decision, 'untested');
  assert.equal(throughput.deltas[1]?.noInterval, 'records missing');
  assert.equal(comparison.runs[0]?.recordsSource, null);
  assert.match(comparison.notes.join('\n'), /A: no target saved/);
  const table = (await runCli(['compare', oldPath, current], env)).stdout;
  assert.match(table, /\nMean TTFT \(ms\) .* no interval: records missing\s+untested\n/);
  assert.match(table, /records missing: no records file and no detailed arrays/);

  const html = join(dir, 'compare.html');
  assert.equal((await runCli(['compare', oldPath, current, '--html', html], env)).code, 0);
  const page = await readFile(html, 'utf8');
  assert.match(page, /Not drawn \(no records file, saved without --save-detailed\): A: earlier\./);
  assert.match(page, /B-A 95% CI/);
});
