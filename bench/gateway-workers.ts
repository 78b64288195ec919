// Gateway requests/s and CPU per request at 1, 2, 4, ... workers (`tokenmeter serve --workers N`), beside the
// leanest Node proxy (helpers/leanest-proxy.ts, one process), side by side in one run, rounds alternated, against an upstream that costs almost nothing: nginx answering every request with a
// fixed SSE chat stream from memory (`return 200`), so the gateway is what is measured. Not part of `npm test`.
// Run from the repository root (nginx: `apt-get install nginx`; taskset: util-linux):
//
//   npm run build && node dist/bench/gateway-workers.js [--seconds 5] [--rounds 3] [--concurrency 32] \
//     [--chunks 10] [--workers 1,2,4] [--cores N]
//
// `--workers` lists the worker counts to measure (default: 1, 2, 4, ... up to the machine's CPUs, at least 1 and
// 2); `--cores` is how many CPUs the pinned layout gives the gateway (default: all but the one the client and
// nginx take, at least 1). The same command on a bigger machine thus shows how the gateway scales.
//
// Each gateway is the real CLI with a records file and JSON logs (to a file), as deployed. The client is this
// process: a closed loop of `--concurrency` streamed chat requests on an undici Pool (keep-alive connections, so
// the cluster's round robin spreads them over the workers once, at connect). Two layouts, each at 1 and 2
// workers:
//   shared  nothing pinned: client, nginx and the gateway's processes share every CPU, as on a small box;
//   pinned  client and nginx on CPU 0, the gateway (all its processes) on CPUs 1..cores: the same cores for every
//           worker count, so on one core the ratio is what running as a cluster costs, on more what it gains.
// The leanest proxy is measured in both layouts (pinned: on the gateway's cores) as the floor a Node proxy costs.
// CPU is the gateway's process tree (primary and workers) from /proc/<pid>/stat, read before and after each round.
// Also timed: 20 scrapes of /metrics, which at 2 workers is aggregated by the primary from both registries.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool, request } from 'undici';
import { cpuMs, processTree } from './helpers/process-usage.js';
import { type SpawnedGateway, spawnGateway } from './helpers/spawn-gateway.js';
import { NGINX, startSseNginx } from './helpers/sse-nginx.js';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '32' },
    chunks: { type: 'string', default: '10' },
    workers: { type: 'string' },
    cores: { type: 'string' },
  },
});
const CPUS = availableParallelism();
const SECONDS = Number(args.seconds);
const ROUNDS = Number(args.rounds);
const CONCURRENCY = Number(args.concurrency);
const CHUNKS = Number(args.chunks);
/** 1, 2, 4, ... up to the machine's CPUs, and at least 1 and 2. */
function defaultWorkers(): number[] {
  const counts = [1, 2];
  while ((counts.at(-1) ?? 1) * 2 <= CPUS) counts.push((counts.at(-1) ?? 1) * 2);
  return counts;
}
const WORKERS = args.workers === undefined ? defaultWorkers() : args.workers.split(',').map(Number);
const GATEWAY_CORES = Math.max(1, Math.min(CPUS - 1, Number(args.cores ?? CPUS - 1)));
/** The pinned layout's CPUs for the gateway (or the leanest proxy): 1..GATEWAY_CORES, or 0 on a 1-CPU machine. */
const GATEWAY_CPUS = CPUS === 1 ? '0' : GATEWAY_CORES === 1 ? '1' : `1-${GATEWAY_CORES}`;
const LEANEST = fileURLToPath(new URL('./helpers/leanest-proxy-process.js', import.meta.url));

/** Pins every process (and thread) in `pids` to `cpus`. */
function pin(pids: readonly number[], cpus: string): void {
  for (const pid of pids) spawnSync('taskset', ['-a', '-cp', cpus, String(pid)], { stdio: 'ignore' });
}

interface Tally {
  done: number;
  failed: number;
  seconds: number;
  cpuMs: number;
}

async function load(url: string, seconds: number, into: Tally, pids: readonly number[]): Promise<void> {
  const pool = new Pool(url, { connections: CONCURRENCY, pipelining: 1 });
  const body = JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] });
  const deadline = performance.now() + seconds * 1000;
  const client = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const res = await pool.request({
        path: '/v1/chat/completions',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      let text = '';
      for await (const piece of res.body) text += (piece as Buffer).toString();
      if (res.statusCode === 200 && text.endsWith('data: [DONE]\n\n')) into.done++;
      else into.failed++;
    }
  };
  const before = cpuMs(pids);
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
  into.seconds += (performance.now() - started) / 1000;
  into.cpuMs += cpuMs(pids) - before;
  await pool.close();
}

/** Median milliseconds of 20 scrapes of /metrics. */
async function scrapeMs(url: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const start = performance.now();
    const res = await request(`${url}/metrics`);
    await res.body.text();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[10] ?? Number.NaN;
}

/** The leanest Node proxy in its own process, pinned to `cpus` when given. */
function spawnLeanest(upstream: string, cpus?: string): Promise<{ url: string; process: ChildProcess }> {
  const argv = [process.execPath, LEANEST, upstream];
  const [command = '', ...rest] = cpus === undefined ? argv : ['taskset', '-c', cpus, ...argv];
  const child = spawn(command, rest, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      const port = /PORT (\d+)/.exec(d.toString())?.[1];
      if (port) resolve({ url: `http://127.0.0.1:${port}`, process: child });
    });
    child.once('exit', (code) => reject(new Error(`the leanest proxy exited with ${code}`)));
  });
}

interface Setup {
  readonly layout: 'shared' | 'pinned';
  /** Worker count; 0 for the leanest proxy. */
  readonly workers: number;
  readonly gateway: { readonly url: string; readonly process: ChildProcess };
  readonly tally: Tally;
}

const nameOf = (setup: Setup): string => (setup.workers === 0 ? 'leanest' : String(setup.workers));

async function main(): Promise<void> {
  if (spawnSync(NGINX, ['-v']).error) throw new Error('nginx is not installed (apt-get install nginx)');
  const dir = mkdtempSync(join(tmpdir(), 'tokenmeter-workers-bench-'));
  const nginx = await startSseNginx({ tokens: CHUNKS });
  const upstream = `${nginx.url}/v1`;
  const setups: Setup[] = [];
  const gateways: SpawnedGateway[] = [];
  for (const layout of ['shared', 'pinned'] as const) {
    const cpus = layout === 'pinned' ? GATEWAY_CPUS : undefined;
    const leanest = await spawnLeanest(nginx.url, cpus);
    setups.push({
      layout,
      workers: 0,
      gateway: leanest,
      tally: { done: 0, failed: 0, seconds: 0, cpuMs: 0 },
    });
    for (const workers of WORKERS) {
      const name = `${layout}-w${workers}`;
      const gateway = await spawnGateway(
        ['--upstream', upstream, '--workers', String(workers), '--records', join(dir, `${name}.jsonl`)],
        join(dir, `${name}.log`),
        cpus,
      );
      gateways.push(gateway);
      setups.push({ layout, workers, gateway, tally: { done: 0, failed: 0, seconds: 0, cpuMs: 0 } });
    }
  }
  const all = `0-${availableParallelism() - 1}`;
  const nginxPids = (): number[] => (nginx.pid === undefined ? [] : processTree(nginx.pid));
  const arrange = (layout: Setup['layout']): void => {
    pin([process.pid, ...nginxPids()], layout === 'pinned' ? '0' : all);
  };
  // Other work on the machine takes cores from every party: said, so a reader can tell a quiet run from a busy one.
  const loadAverage = (): string => loadavg()[0]?.toFixed(1) ?? '?';
  console.log(`load average (1 min) at start: ${loadAverage()}`);
  console.log(
    `${CPUS} CPUs (pinned: gateway on ${GATEWAY_CPUS}); workers ${WORKERS.join(', ')}; ${CONCURRENCY} concurrent streams of ${CHUNKS} content chunks; ${SECONDS} s x ${ROUNDS} rounds per setup`,
  );
  for (const setup of setups) {
    arrange(setup.layout);
    await load(setup.gateway.url, 1, { done: 0, failed: 0, seconds: 0, cpuMs: 0 }, []); // warm-up: JIT, pools
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < setups.length; i++) {
      const setup = setups[(i + round) % setups.length] as Setup;
      arrange(setup.layout);
      const pid = setup.gateway.process.pid;
      await load(setup.gateway.url, SECONDS, setup.tally, pid === undefined ? [] : processTree(pid));
    }
  }
  arrange('shared');
  console.log(`load average (1 min) at the end: ${loadAverage()}`);
  // Cores used: the gateway's CPU time over the wall time; under 1 (pinned) or 2 (shared) when other processes on
  // the machine took the rest.
  console.log(
    'layout  workers   req/s  x 1 worker  CPU ms/req  x leanest  cores used  failed  /metrics scrape ms (median)',
  );
  for (const setup of setups) {
    const { tally } = setup;
    const rps = tally.done / tally.seconds;
    const one = setups.find((s) => s.layout === setup.layout && s.workers === 1)?.tally as Tally;
    const lean = setups.find((s) => s.layout === setup.layout && s.workers === 0)?.tally as Tally;
    const ratio = rps / (one.done / one.seconds);
    const cpu = tally.cpuMs / tally.done;
    // The leanest proxy has no /metrics.
    const scrape = setup.workers === 0 ? '-' : (await scrapeMs(setup.gateway.url)).toFixed(2);
    console.log(
      `${setup.layout.padEnd(8)}${nameOf(setup).padStart(7)}${rps.toFixed(0).padStart(8)}${ratio.toFixed(2).padStart(12)}${cpu.toFixed(3).padStart(12)}${(cpu / (lean.cpuMs / lean.done)).toFixed(2).padStart(11)}${(tally.cpuMs / 1000 / tally.seconds).toFixed(2).padStart(12)}${String(tally.failed).padStart(8)}${scrape.padStart(29)}`,
    );
  }
  for (const setup of setups) setup.gateway.process.kill('SIGTERM');
  await Promise.all(gateways.map((g) => g.exited));
  await nginx.stop();
  rmSync(dir, { recursive: true, force: true });
}

await main();
