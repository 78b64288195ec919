// bench reads the GPUs' figures through the run: a DCGM exporter's page (--gpu-metrics-url) served here, rendered
// as dcgm-exporter 4.5.3-4.8.2 writes it (test/loadgen/helpers/dcgm-page.ts), whose power, energy counter and
// utilisation change with every answer; and nvidia-smi, a script of ours on the PATH standing in for it. The text
// report, the result JSON (vLLM's energy keys and tokenmeter's section) and `merge` of two shards are checked
// against the values the page served.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { delimiter, join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/run-cli.js';
import { bench, cleanEnv, scratchDir } from './helpers/bench-cli.js';
import { type FakeGpu, fakeGpu, renderDcgmPage } from './helpers/dcgm-page.js';

let sim: RunningSimulator;

before(async () => {
  sim = await startSimulator({
    seed: 5,
    timing: { ttftMs: 20, itlMs: 4, jitter: 0, prefillMsPerToken: 0, maxNumSeqs: 8, batchSlowdown: 0 },
  });
});
after(() => sim.close());

// biome-ignore lint/suspicious/noExplicitAny: the result JSON as read back, indexed freely by the assertions
type Json = Record<string, any>;

function args(dir: string, extra: string[]): string[] {
  return [
    '--base-url',
    sim.url,
    '--dataset-name',
    'random',
    '--random-input-len',
    '16',
    '--random-output-len',
    '20',
    '--ignore-eos',
    '--num-prompts',
    '30',
    '--request-rate',
    '60',
    '--disable-tqdm',
    '--save-result',
    '--result-dir',
    dir,
    '--result-filename',
    'run.json',
    '--server-metrics-interval',
    '0.1',
    '--no-server-metrics',
    ...extra,
  ];
}

const resultOf = (dir: string): Json => JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as Json;

interface DcgmServer {
  readonly server: Server;
  readonly url: string;
  /** Per answer, each GPU's energy counter as served. */
  readonly served: number[][];
}

/** A DCGM page whose GPUs draw more power with every answer, their counters advanced by that power over the
 *  time since the last answer (a real counter's behaviour), and busier: every figure changes over the run. */
async function dcgmServer(gpus: FakeGpu[], host: string): Promise<DcgmServer> {
  const served: number[][] = [];
  let last = performance.now();
  const server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    const now = performance.now();
    for (const gpu of gpus) {
      gpu.energyMj += gpu.powerW * (now - last);
      gpu.powerW += 10;
      gpu.utilPct = Math.min(100, gpu.utilPct + 15);
      gpu.memUsedMiB += 16;
    }
    last = now;
    served.push(gpus.map((g) => Math.round(g.energyMj)));
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(renderDcgmPage(gpus, host));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/metrics`, served };
}

/** The energy the page's counters say between the first answer and the last, J. */
function servedEnergyJ(page: DcgmServer): number {
  const first = page.served[0] as number[];
  const last = page.served.at(-1) as number[];
  return last.reduce((sum, mj, i) => sum + (mj - (first[i] as number)), 0) / 1000;
}

test('a DCGM page read through the run: energy from its counter, per output token, power and utilisation in the report and the result JSON', async () => {
  const page = await dcgmServer([fakeGpu(0), fakeGpu(1)], 'gpu-node-1');
  try {
    const dir = scratchDir();
    const html = join(dir, 'report.html');
    const run = await bench(args(dir, ['--gpu-metrics-url', page.url, '--html', html]), cleanEnv());
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.ok(page.served.length >= 3, `${page.served.length} pages served`);
    const json = resultOf(dir);
    const energyJ = servedEnergyJ(page);
    assert.ok(energyJ > 0);
    // vLLM's keys: the counters' increase between the baseline and the last sample, over the output tokens.
    assert.ok(
      Math.abs(json['gpu_energy_j'] - energyJ) < 1e-9,
      `${json['gpu_energy_j']} J against ${energyJ} J`,
    );
    assert.deepEqual(json['energy_gpu_ids'], [0, 1]);
    assert.equal(json['total_output_tokens'], 600);
    assert.ok(Math.abs(json['gpu_energy_per_output_token_j'] - energyJ / 600) < 1e-12);
    assert.ok(Math.abs(json['gpu_avg_power_w'] - energyJ / json['gpu_energy_duration_s']) < 1e-9);
    const gpu = json['tokenmeter']['gpu_metrics'];
    assert.deepEqual(
      gpu['gpus'].map((g: Json) => [g['index'], g['host'], g['model']]),
      [
        ['0', 'gpu-node-1', 'NVIDIA H100 80GB HBM3'],
        ['1', 'gpu-node-1', 'NVIDIA H100 80GB HBM3'],
      ],
    );
    const total = gpu['summary']['total'];
    assert.equal(total['gpus'], 2);
    assert.ok(total['mean_util_pct'] > 0 && total['mean_util_pct'] <= 100);
    // Power rose 10 W an answer on each GPU: the peak is the last page's sum.
    assert.equal(total['max_power_w'], 2 * (70 + 10 * page.served.length));
    assert.ok(gpu['summary']['gpus'].every((g: Json) => g['energy_from'] === 'counter'));
    // The text report says the same.
    assert.match(run.stdout, /-+ GPU -+/);
    assert.match(run.stdout, new RegExp(`GPU energy \\(J\\):\\s+${energyJ.toFixed(1)} over`));
    assert.match(
      run.stdout,
      new RegExp(`GPU energy per output token \\(J\\):\\s+${(energyJ / 600).toFixed(4)}\\n`),
    );
    assert.match(run.stdout, /GPU power mean \/ max \(W\):\s+\d+\.\d \/ \d+\.\d/);
    assert.match(run.stdout, /GPU utilisation mean \(%\):\s+\d+\.\d/);
    assert.match(run.stdout, /GPU 1 on gpu-node-1 \(NVIDIA H100 80GB HBM3\):/);
    // And the HTML report, from the same saved figures.
    const report = readFileSync(html, 'utf8');
    assert.match(report, /<h2>GPU<\/h2>/);
    assert.match(
      report,
      new RegExp(`Energy per output token \\(J\\)</th><td[^>]*>${(energyJ / 600).toFixed(4)}<`),
    );
    assert.equal(report.match(/<table class="gpus">.*?<\/table>/s)?.[0].match(/<tr><td>/g)?.length, 2);
  } finally {
    page.server.close();
  }
});

test('merge of two shards: different GPUs have their energy summed, a GPU both shards read is counted once', async () => {
  const pages = [
    await dcgmServer([fakeGpu(0)], 'node-a'),
    await dcgmServer([fakeGpu(0, { uuid: 'GPU-bbbbbbbb-0000-0000-0000-000000000000' })], 'node-b'),
  ];
  try {
    const dirs = [scratchDir(), scratchDir()];
    for (const [i, dir] of dirs.entries()) {
      const page = pages[i] as DcgmServer;
      const run = await bench(args(dir, ['--shard', `${i}/2`, '--gpu-metrics-url', page.url]), cleanEnv());
      assert.equal(run.code, 0, run.stdout + run.stderr);
    }
    const shardEnergy = dirs.map((dir) => resultOf(dir)['gpu_energy_j'] as number);
    const mergedDir = scratchDir();
    const merge = await runCli(
      ['merge', ...dirs.map((dir) => join(dir, 'run.json')), '--save-result', '--result-dir', mergedDir],
      cleanEnv(),
    );
    assert.equal(merge.code, 0, merge.stderr);
    const [file] = readdirSync(mergedDir).filter((name) => name.endsWith('.json'));
    const merged = JSON.parse(readFileSync(join(mergedDir, file as string), 'utf8')) as Json;
    const sum = (shardEnergy[0] as number) + (shardEnergy[1] as number);
    assert.ok(Math.abs(merged['gpu_energy_j'] - sum) < 1e-9, `${merged['gpu_energy_j']} J against ${sum} J`);
    assert.ok(
      Math.abs(
        merged['gpu_energy_j'] -
          servedEnergyJ(pages[0] as DcgmServer) -
          servedEnergyJ(pages[1] as DcgmServer),
      ) < 1e-9,
    );
    assert.equal(merged['tokenmeter']['gpu_metrics']['summary']['total']['gpus'], 2);
    assert.ok(
      Math.abs(merged['gpu_energy_per_output_token_j'] - sum / merged['total_output_tokens']) < 1e-12,
    );
    assert.match(merge.stdout, new RegExp(`GPU energy \\(J\\):\\s+${sum.toFixed(1)} over`));
  } finally {
    for (const page of pages) page.server.close();
  }

  // Both shards reading one page (the usual case): its GPU once, from the first counter either read to the last.
  const page = await dcgmServer([fakeGpu(0)], 'node-a');
  try {
    const dirs = [scratchDir(), scratchDir()];
    for (const [i, dir] of dirs.entries()) {
      const run = await bench(args(dir, ['--shard', `${i}/2`, '--gpu-metrics-url', page.url]), cleanEnv());
      assert.equal(run.code, 0, run.stdout + run.stderr);
    }
    const mergedDir = scratchDir();
    const merge = await runCli(
      ['merge', ...dirs.map((dir) => join(dir, 'run.json')), '--save-result', '--result-dir', mergedDir],
      cleanEnv(),
    );
    assert.equal(merge.code, 0, merge.stderr);
    const [file] = readdirSync(mergedDir).filter((name) => name.endsWith('.json'));
    const merged = JSON.parse(readFileSync(join(mergedDir, file as string), 'utf8')) as Json;
    assert.equal(merged['tokenmeter']['gpu_metrics']['summary']['total']['gpus'], 1);
    assert.ok(Math.abs(merged['gpu_energy_j'] - servedEnergyJ(page)) < 1e-9);
  } finally {
    page.server.close();
  }
});

/** A folder holding an `nvidia-smi` that prints two GPUs every -lms milliseconds, 100 W more each tick. */
function fakeNvidiaSmi(): string {
  const dir = join(scratchDir(), 'bin');
  mkdirSync(dir);
  const script = join(dir, 'nvidia-smi');
  writeFileSync(
    script,
    `#!${process.execPath}
const args = process.argv.slice(2);
const ms = Number(args[args.indexOf('-lms') + 1]);
if (!args.includes('--format=csv,noheader,nounits') || !(ms > 0)) process.exit(2);
let tick = 0;
const print = () => {
  tick++;
  process.stdout.write(
    \`0, GPU-aaaa, NVIDIA L4, \${(20 + 100 * tick).toFixed(2)}, \${Math.min(100, tick * 20)}, \${1000 + tick}, 23034\\n\` +
    \`1, GPU-bbbb, NVIDIA L4, [N/A], 0, 500, 23034\\n\`,
  );
};
print();
setInterval(print, ms);
`,
  );
  chmodSync(script, 0o755);
  return dir;
}

test('nvidia-smi on the PATH is sampled without asking: power integrated into energy, utilisation and memory', async () => {
  const bin = fakeNvidiaSmi();
  const dir = scratchDir();
  const env = cleanEnv({ PATH: `${bin}${delimiter}${process.env['PATH'] ?? ''}` });
  const run = await bench(args(dir, []), env);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const json = resultOf(dir);
  const gpu = json['tokenmeter']['gpu_metrics'];
  assert.deepEqual(
    gpu['sources'].map((s: Json) => s['source']),
    ['nvidia-smi'],
  );
  const [first, second] = gpu['gpus'] as Json[];
  assert.equal(first?.['model'], 'NVIDIA L4');
  // The trapezoid rule over the samples as saved.
  const t = first?.['t_s'] as number[];
  const w = first?.['power_w'] as number[];
  assert.ok(t.length >= 3, `${t.length} samples`);
  let joules = 0;
  for (let i = 1; i < t.length; i++)
    joules += (((w[i - 1] as number) + (w[i] as number)) / 2) * ((t[i] as number) - (t[i - 1] as number));
  assert.ok(
    Math.abs(json['gpu_energy_j'] - joules) < 0.01 * joules,
    `${json['gpu_energy_j']} J against ${joules} J`,
  );
  // The second GPU reports no power: no energy of its own, still its utilisation and memory.
  assert.ok(second?.['power_w'].every((v: unknown) => v === null));
  assert.deepEqual(json['energy_gpu_ids'], [0]);
  assert.equal(gpu['summary']['total']['mem_total_mib'], 2 * 23034);
  assert.match(run.stdout, /Source:\s+nvidia-smi \(2 GPUs\)/);
  assert.match(run.stdout, /\(power integrated\)/);
});

test('no nvidia-smi on the PATH: nothing said unless --nvidia-smi asked, then one line; the run is unaffected', async () => {
  const env = cleanEnv({ PATH: join(scratchDir(), 'empty') });
  // The CLI is started by absolute path (process.execPath): an empty PATH hides only nvidia-smi.
  const quiet = scratchDir();
  const plain = await bench(args(quiet, []), env);
  assert.equal(plain.code, 0, plain.stdout + plain.stderr);
  assert.doesNotMatch(plain.stdout, /GPU/);
  assert.equal(resultOf(quiet)['tokenmeter']['gpu_metrics'], undefined);
  assert.equal(resultOf(quiet)['gpu_energy_j'], undefined);
  const asked = scratchDir();
  const run = await bench(args(asked, ['--nvidia-smi']), env);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /^GPU metrics: none from --nvidia-smi: no nvidia-smi on the PATH\.$/m);
  assert.deepEqual(resultOf(asked)['tokenmeter']['gpu_metrics']['notes'], [
    '--nvidia-smi: no nvidia-smi on the PATH',
  ]);
});

test('a --gpu-metrics-url that is not a DCGM page says so in one line; the run goes on', async () => {
  const dir = scratchDir();
  const run = await bench(args(dir, ['--gpu-metrics-url', `${sim.url}/metrics`]), cleanEnv());
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(
    run.stdout,
    /GPU metrics: none from --gpu-metrics-url http:\/\/127\.0\.0\.1:\d+\/metrics answered, but with none of DCGM's GPU fields/,
  );
});

test("sweep reads the page through every level: each level's energy per output token in its table and summary, and --plot-timeline each level's timeline", async () => {
  const page = await dcgmServer([fakeGpu(0)], 'gpu-node-1');
  try {
    const dir = scratchDir();
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
        '20,40',
        '--level-seconds',
        '1',
        '--no-server-metrics',
        '--server-metrics-interval',
        '0.1',
        '--gpu-metrics-url',
        page.url,
        '--plot-timeline',
        '--html',
        join(dir, 'sweep.html'),
        '--disable-tqdm',
        '--result-dir',
        dir,
      ],
      cleanEnv(),
    );
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const summary = JSON.parse(readFileSync(join(dir, 'sweep-summary.json'), 'utf8')) as Json;
    const levels = summary['levels'] as Json[];
    assert.equal(levels.length, 2);
    for (const level of levels) {
      assert.ok(level['gpu_energy_j'] > 0, JSON.stringify(level));
      assert.ok(level['gpu_energy_per_output_token_j'] > 0);
      assert.ok(level['gpu_avg_power_w'] > 0);
    }
    assert.match(run.stdout, /J\/out tok\s+GPU W\s+status/);
    // The sweep page's table has the column, each level's figure as saved.
    const sweepPage = readFileSync(join(dir, 'sweep.html'), 'utf8');
    assert.match(sweepPage, /<th class="num">GPU J per output token<\/th>/);
    for (const level of levels) {
      assert.ok(
        sweepPage.includes(
          `<td class="num">${(level['gpu_energy_per_output_token_j'] as number).toFixed(4)}</td>`,
        ),
      );
    }
    // --plot-timeline: each level's report beside its result file, as bench writes one.
    for (const level of levels) {
      const timeline = join(
        dir,
        String(level['result_file'])
          .replace(/^.*[\\/]/, '')
          .replace(/\.json$/, '.timeline.html'),
      );
      assert.match(readFileSync(timeline, 'utf8'), /data-chart="timeline"/);
    }
  } finally {
    page.server.close();
  }
});
