// What `tokenmeter bench` costs beside vLLM's own client: peak RSS, CPU and how true its TTFT stamps are, the two
// run alternately against one simulator (2 ms per token, random 64-token prompts, 32-token answers with ignore_eos)
// at each concurrency, `--waves` x C requests each. bench runs with its defaults (records file, server metrics
// read every second), as a user runs it.
//
//   npm run build && VLLM_SRC=<vLLM checkout at 009e6d4a> node dist/bench/loadgen-footprint.js \
//     [--concurrency 64,256,1024] [--waves 4] [--rounds 1] [--vllm-src DIR] [--python /usr/bin/python3]
//
// vLLM's client is bench/helpers/vllm-client.py: vLLM's request function, imported from the checkout that
// --vllm-src or $VLLM_SRC names (vllm/benchmarks/lib/endpoint_request_func.py; no vLLM code is in this
// repository), driven as serve.py's benchmark() drives it, on Python with Debian's python3-aiohttp, python3-numpy,
// python3-regex and python3-tqdm. Where the checkout or those packages are missing, the bare undici client of
// helpers/bare-stream-client.ts stands in (no TTFT: it stamps nothing) and the table says so.
//
// Peak RSS and CPU are GNU time's %M, %U and %S of each client's process, so nothing runs inside the process
// measured. TTFT truth: the simulator's /sim/truth/<request id> (when it received the request and wrote the first
// token, on its own clock); the figure is the p99 over requests of (client TTFT - true TTFT), after the first wave
// (the first C requests all start at once, so they measure the connection storm, not the stamps).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { percentile } from '../loadgen/metrics/numpy-stats.js';
import { spawnSimulator } from './helpers/spawn-simulator.js';

const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '64,256,1024' },
    waves: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '1' },
    'vllm-src': { type: 'string', default: process.env['VLLM_SRC'] },
    python: { type: 'string', default: '/usr/bin/python3' },
  },
});
const CLI = fileURLToPath(new URL('../../bin/tokenmeter.js', import.meta.url));
const BARE = fileURLToPath(new URL('./helpers/bare-stream-client.js', import.meta.url));
// The Python driver is not compiled: it is read from the source tree beside this file's source.
const VLLM_DRIVER = fileURLToPath(new URL('../../bench/helpers/vllm-client.py', import.meta.url));
const INPUT_LEN = 64;
const OUTPUT_LEN = 32;

interface Usage {
  readonly cpuS: number;
  readonly rssMb: number;
  readonly wallS: number;
}

interface ClientRun extends Usage {
  /** Client TTFT minus the simulator's, ms, by request index; null where the client stamps none. */
  readonly ttftExcessMs: number[] | null;
}

/** Runs `command` under GNU time; its last stderr line is "user system maxrss-kB elapsed". */
function measured(command: string, args: string[]): Usage {
  const run = spawnSync('/usr/bin/time', ['-f', 'TIME %U %S %M %e', command, ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = /TIME (\S+) (\S+) (\S+) (\S+)\s*$/.exec(run.stderr);
  if (run.status !== 0 || line === null)
    throw new Error(`${command} ${args.join(' ')} failed: ${run.stderr.slice(-2000)}`);
  const [, user, system, maxKb, elapsed] = line.map(Number) as [number, number, number, number, number];
  return { cpuS: user + system, rssMb: maxKb / 1024, wallS: elapsed };
}

/** Whether vLLM's client can run here: the checkout's request function and the Python packages it imports. */
function vllmClientMissing(): string | null {
  const src = values['vllm-src'];
  if (src === undefined) return 'no --vllm-src or $VLLM_SRC';
  if (!existsSync(join(src, 'vllm', 'benchmarks', 'lib', 'endpoint_request_func.py')))
    return `${src} holds no vllm/benchmarks/lib/endpoint_request_func.py`;
  const probe = spawnSync(values.python, ['-c', 'import aiohttp, numpy, regex, tqdm'], { encoding: 'utf8' });
  if (probe.status !== 0) return `${values.python} lacks aiohttp, numpy, regex or tqdm`;
  return null;
}
const missing = vllmClientMissing();
const otherName = missing === null ? 'vLLM' : 'bare undici';

const sim = await spawnSimulator([
  '--itl-ms',
  '2',
  '--ttft-ms',
  '5',
  '--prefill-ms-per-token',
  '0',
  '--jitter',
  '0',
  '--batch-slowdown',
  '0',
  '--max-num-seqs',
  '100000',
]);

interface Truth {
  readonly receivedAtMs: number;
  readonly contentChunkEmittedAtMs: readonly number[];
}

/** The simulator's TTFT for each of `count` requests named `prefix<i>` (NaN where it kept none). */
async function truthTtfts(prefix: string, count: number): Promise<Float64Array> {
  const out = new Float64Array(count).fill(Number.NaN);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      const res = await fetch(`${sim.url}/sim/truth/${encodeURIComponent(`${prefix}${i}`)}`);
      if (res.status !== 200) {
        await res.body?.cancel();
        continue;
      }
      const truth = (await res.json()) as Truth;
      const first = truth.contentChunkEmittedAtMs[0];
      if (first !== undefined) out[i] = first - truth.receivedAtMs;
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return out;
}

function excess(client: Map<number, number>, truth: Float64Array, firstWave: number): number[] {
  const out: number[] = [];
  for (const [i, ttft] of client) {
    const t = truth[i];
    if (i >= firstWave && t !== undefined && !Number.isNaN(t)) out.push(ttft - t);
  }
  return out;
}

const folder = mkdtempSync(join(tmpdir(), 'tokenmeter-loadgen-footprint-'));

async function runBench(c: number, count: number, prefix: string): Promise<ClientRun> {
  const recordsFile = join(folder, `${prefix}records.jsonl`);
  const usage = measured(process.execPath, [
    CLI,
    'bench',
    '--base-url',
    sim.url,
    '--backend',
    'openai',
    '--model',
    'tokenmeter/sim-7b',
    '--dataset-name',
    'random',
    '--random-input-len',
    String(INPUT_LEN),
    '--random-output-len',
    String(OUTPUT_LEN),
    '--ignore-eos',
    '--num-prompts',
    String(count),
    '--max-concurrency',
    String(c),
    '--disable-tqdm',
    '--request-id-prefix',
    prefix,
    '--result-dir',
    folder,
    '--records-file',
    recordsFile,
  ]);
  const ttfts = new Map<number, number>();
  for (const line of readFileSync(recordsFile, 'utf8').split('\n')) {
    if (line === '') continue;
    const r = JSON.parse(line) as { index?: number; outcome?: string; ttftMs?: number | null };
    if (r.outcome === 'ok' && typeof r.index === 'number' && typeof r.ttftMs === 'number')
      ttfts.set(r.index, r.ttftMs);
  }
  return { ...usage, ttftExcessMs: excess(ttfts, await truthTtfts(prefix, count), c) };
}

async function runOther(c: number, count: number, prefix: string): Promise<ClientRun> {
  if (missing !== null) {
    const usage = measured(process.execPath, [
      BARE,
      '--url',
      sim.url,
      '--requests',
      String(count),
      '--concurrency',
      String(c),
      '--prompt-words',
      String(INPUT_LEN),
      '--output-tokens',
      String(OUTPUT_LEN),
    ]);
    return { ...usage, ttftExcessMs: null };
  }
  const ttftsFile = join(folder, `${prefix}ttfts.txt`);
  const usage = measured(values.python, [
    VLLM_DRIVER,
    '--vllm-src',
    values['vllm-src'] as string,
    '--url',
    sim.url,
    '--requests',
    String(count),
    '--concurrency',
    String(c),
    '--input-len',
    String(INPUT_LEN),
    '--output-len',
    String(OUTPUT_LEN),
    '--prefix',
    prefix,
    '--ttfts-out',
    ttftsFile,
  ]);
  const ttfts = new Map<number, number>();
  for (const line of readFileSync(ttftsFile, 'utf8').split('\n')) {
    const [id, ms] = line.split(' ');
    if (id !== undefined && ms !== undefined) ttfts.set(Number(id.slice(prefix.length)), Number(ms));
  }
  return { ...usage, ttftExcessMs: excess(ttfts, await truthTtfts(prefix, count), c) };
}

const p99 = (xs: number[] | null): string =>
  xs === null || xs.length === 0 ? '-' : percentile(xs, 99).toFixed(1);
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

try {
  console.log(
    missing === null
      ? `other client: vLLM's (${values['vllm-src']}, ${values.python})`
      : `other client: the bare undici client stands in for vLLM's (${missing}); it stamps no TTFT`,
  );
  console.log(`load average at start: ${load()}`);
  console.log(
    `| C | requests | round | bench RSS MB | ${otherName} RSS MB | RSS ratio | bench CPU s | ${otherName} CPU s | CPU ratio | bench TTFT-truth p99 ms | ${otherName} TTFT-truth p99 ms |`,
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const c of values.concurrency.split(',').map(Number)) {
    const count = c * Number(values.waves);
    for (let round = 0; round < Number(values.rounds); round++) {
      // Alternated, the order flipped every round, so a noisy neighbour hits both sides alike.
      const tag = `fp-c${c}-r${round}`;
      let bench: ClientRun;
      let other: ClientRun;
      if (round % 2 === 0) {
        bench = await runBench(c, count, `${tag}-bench-`);
        other = await runOther(c, count, `${tag}-other-`);
      } else {
        other = await runOther(c, count, `${tag}-other-`);
        bench = await runBench(c, count, `${tag}-bench-`);
      }
      console.log(
        `| ${c} | ${count} | ${round + 1} | ${bench.rssMb.toFixed(0)} | ${other.rssMb.toFixed(0)} | ` +
          `${(bench.rssMb / other.rssMb).toFixed(2)} | ${bench.cpuS.toFixed(2)} | ${other.cpuS.toFixed(2)} | ` +
          `${(bench.cpuS / other.cpuS).toFixed(2)} | ${p99(bench.ttftExcessMs)} | ${p99(other.ttftExcessMs)} |`,
      );
    }
  }
  console.log(`load average at end: ${load()}`);
} finally {
  sim.process.kill();
  rmSync(folder, { recursive: true, force: true });
}
