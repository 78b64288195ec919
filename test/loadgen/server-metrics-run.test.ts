// bench reads the server's /metrics through the run: a baseline before the first request, samples every
// interval, a last one after the drain; the series and their summary in the result JSON and a report section.
// Against the simulator (its vLLM-named page), against a scripted page on port 0 whose every answer is known,
// and against a target whose /metrics is not a server's (one line, the run goes on).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { bench, cleanEnv, scratchDir } from './helpers/bench-cli.js';

const SEATS = 4;
let sim: RunningSimulator;

before(async () => {
  sim = await startSimulator({
    seed: 3,
    timing: { ttftMs: 20, itlMs: 4, jitter: 0, prefillMsPerToken: 0, maxNumSeqs: SEATS, batchSlowdown: 0 },
  });
});
after(() => sim.close());

const RUN = [
  '--dataset-name',
  'random',
  '--random-input-len',
  '16',
  '--random-output-len',
  '20',
  '--ignore-eos',
  '--num-prompts',
  '40',
  '--request-rate',
  '80',
  '--disable-tqdm',
  '--save-result',
  '--server-metrics-interval',
  '0.1',
];

// biome-ignore lint/suspicious/noExplicitAny: the result JSON as read back, indexed freely by the assertions
type Json = Record<string, any>;

function resultOf(dir: string): Json {
  const file = readdirSync(dir).find((f) => f.endsWith('.json'));
  assert.ok(file !== undefined, `no result file in ${dir}`);
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as Json;
}

/** A /metrics page whose n-th answer (from 0) has `waiting` n and a preemption counter of 2n. */
async function scriptedPage(status = 200): Promise<{ server: Server; url: string; served: () => number }> {
  let served = 0;
  const server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    const n = served++;
    res.writeHead(status, { 'content-type': 'text/plain; version=0.0.4' });
    res.end(
      status !== 200
        ? 'no'
        : [
            '# TYPE vllm:num_requests_waiting gauge',
            `vllm:num_requests_waiting{engine="0",model_name="m"} ${n}`,
            '# TYPE vllm:kv_cache_usage_perc gauge',
            `vllm:kv_cache_usage_perc{engine="0",model_name="m"} ${Math.min(1, n / 10)}`,
            '# TYPE vllm:num_preemptions counter',
            `vllm:num_preemptions_total{engine="0",model_name="m"} ${2 * n}`,
            '',
          ].join('\n'),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/metrics`, served: () => served };
}

test("against the simulator: the series span the run, and the server's counts match the run's", async () => {
  const dir = scratchDir();
  const run = await bench(['--base-url', sim.url, '--result-dir', dir, ...RUN], cleanEnv());
  assert.equal(run.code, 0, run.stderr);
  const json = resultOf(dir);
  const server = json['tokenmeter']['server_metrics'];
  assert.equal(server.available, true, JSON.stringify(server));
  assert.equal(server.url, `${sim.url}/metrics`);
  const t: number[] = server.series.t_s;
  assert.ok((t[0] as number) < 0, `the baseline is before t = 0 (${t[0]})`);
  assert.ok(
    (t.at(-1) as number) >= json['duration'],
    `the last sample ${t.at(-1)} is after the drain (${json['duration']} s)`,
  );
  assert.ok(t.length >= 3);
  // The simulator seats SEATS sequences: running never shows more.
  assert.equal(server.summary.max_requests_running <= SEATS, true);
  // Its TTFT histogram counted exactly this run's requests (the baseline is subtracted).
  assert.equal(server.summary.server_ttft.count, 40);
  assert.ok(server.summary.read_cpu_ms_mean >= 0 && server.scrape.read_cpu_ms.length === t.length);
  assert.match(run.stdout, /-+ Server metrics \(vllm \/metrics\) -+/);
  assert.match(
    run.stdout,
    /Server TTFT P99 \(ms\): +([\d.]+ \(bucket \d+-(\d+|inf)\)|under \d+ \(first bucket\)), client [\d.]+/,
  );
  assert.match(run.stdout, /Scrape cost \(CPU per sample\): +[\d.]+ ms/);
});

test('--server-metrics-url: every sample saved is a page the server answered, values as served', async () => {
  const page = await scriptedPage();
  try {
    const dir = scratchDir();
    const run = await bench(
      ['--base-url', sim.url, '--result-dir', dir, ...RUN, '--server-metrics-url', page.url],
      cleanEnv(),
    );
    assert.equal(run.code, 0, run.stderr);
    const server = resultOf(dir)['tokenmeter']['server_metrics'];
    const waiting: number[] = server.series.num_requests_waiting;
    // One sample per page served, in order, none lost or invented.
    assert.equal(waiting.length, page.served());
    assert.deepEqual(
      waiting,
      waiting.map((_, i) => i),
    );
    assert.deepEqual(
      server.series.num_preemptions,
      waiting.map((n) => 2 * n),
    );
    assert.equal(server.summary.preemptions, 2 * (waiting.length - 1), 'the increase from the baseline');
    assert.equal(server.summary.peak_kv_cache_usage, Math.min(1, (waiting.length - 1) / 10));
    assert.equal(server.summary.max_requests_waiting, waiting.length - 1);
  } finally {
    page.server.close();
  }
});

test('a /metrics that is not a server page: one line, no series, the run unaffected', async () => {
  const page = await scriptedPage(404);
  try {
    const dir = scratchDir();
    const run = await bench(
      ['--base-url', sim.url, '--result-dir', dir, ...RUN, '--server-metrics-url', page.url],
      cleanEnv(),
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      /^Server metrics: none \(--server-metrics-url http:\/\/127\.0\.0\.1:\d+\/metrics answered HTTP 404\)\.$/m,
    );
    assert.equal(page.served(), 1, 'only the baseline was tried');
    const server = resultOf(dir)['tokenmeter']['server_metrics'];
    assert.equal(server.available, false);
    assert.match(server.reason, /answered HTTP 404/);
  } finally {
    page.server.close();
  }
});

test('--no-server-metrics: nothing read, nothing saved', async () => {
  const dir = scratchDir();
  const run = await bench(
    ['--base-url', sim.url, '--result-dir', dir, ...RUN, '--no-server-metrics'],
    cleanEnv(),
  );
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(run.stdout, /Server metrics/);
  assert.equal(resultOf(dir)['tokenmeter']['server_metrics'], undefined);
});

test("bench --workers 2: the shards' series joined by time, the histogram spanning both", async () => {
  const dir = scratchDir();
  const run = await bench(['--base-url', sim.url, '--result-dir', dir, ...RUN, '--workers', '2'], cleanEnv());
  assert.equal(run.code, 0, run.stderr);
  const server = resultOf(dir)['tokenmeter']['server_metrics'];
  assert.equal(server.available, true, JSON.stringify(server));
  const t: number[] = server.series.t_s;
  assert.deepEqual(
    t,
    [...t].sort((a, b) => a - b),
    'in time order',
  );
  // Two baselines (one per worker) before t = 0, and the TTFT histogram's increase counts both shards' requests.
  assert.equal(t.filter((x) => x < 0).length >= 2, true, `baselines: ${t.slice(0, 4)}`);
  assert.equal(server.summary.server_ttft.count, 40);
  assert.match(run.stdout, /-+ Server metrics \(vllm \/metrics\) -+/);
});
