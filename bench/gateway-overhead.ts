// What does the gateway add? Side by side in one run, rounds alternated: streamed chat requests sent directly
// to a mock upstream, through the leanest Node proxy (`node:http` + an undici dispatch handler, no measurement:
// helpers/leanest-proxy.ts), through the "Fastify floor" (the leanest proxy's undici dispatch inside a Fastify
// wildcard route with a buffer body parser and a hijacked reply: what Fastify itself costs a proxy that adds
// nothing), through a bare @fastify/http-proxy (nothing added), through nginx (Debian's package,
// `proxy_buffering off`, skipped when not installed), through the gateway (metering, records file and JSON
// logs on) and through the gateway with OpenTelemetry span export on as well (OTLP/HTTP protobuf, the default,
// to a local receiver that reads and discards each export: docs/tracing.md), at concurrency 16 and 256. Not
// part of `npm test`. Run from the repository root (nginx: `apt-get
// install nginx`):
//
//   npm run build && node dist/bench/gateway-overhead.js [--seconds 5] [--rounds 3] [--tokens 10] \
//     [--itl-ms 16:40,256:100] [--concurrency 16,256] [--cores N] [--cpu-prof-dir DIR] \
//     [--baseline-build DIR[,DIR...]] [--only leanest,gateway,baseline]
//
// `--cpu-prof-dir DIR` writes a CPU profile (node --cpu-prof) of the leanest proxy, the Fastify floor and the
// gateway into DIR (leanest.cpuprofile, floor.cpuprofile, gateway.cpuprofile, gateway-otlp.cpuprofile), to see
// where a proxy's time goes under the benchmark's load (open them in Chrome's DevTools).
//
// `--baseline-build DIR` adds one more target, "gateway baseline": the gateway as another compiled tree builds it
// (DIR is that tree's `dist` folder, with its package.json beside it and node_modules reachable from it, e.g. a
// `git worktree` of the commit before a change, built), started the same way and measured in the same rounds, so
// a change's before and after are side by side on the same noisy machine. Several DIRs, comma-separated, are
// "gateway baseline 1", "gateway baseline 2", ... in that order. `--only` keeps the named targets
// (leanest, floor, bare, nginx, gateway, otlp, baseline; direct and leanest always run), for shorter runs: the
// others are not started at all.
//
// `--cores N` pins every process of the run (this client, the upstream, every proxy) to CPUs 0..N-1 with taskset
// (default: every CPU of the machine), so a run on a bigger machine can be made to look like a small one, or
// given room. The load average is printed at the start and the end: on a shared machine it says how noisy the
// figures are.
//
// Every party runs in its own process (upstream, each proxy, the client), but on a 2-core machine they share the
// cores. The default token rates (10 tokens, 40 ms apart at concurrency 16, 100 ms apart at 256: ~35 and ~230
// requests/s, ~400 and ~2,800 SSE events/s through the proxy) keep the box below saturation, so the figures show
// what the proxy adds rather than which process lost the fight for a core. Reported per proxy: CPU milliseconds
// per request and its ratio to the leanest Node proxy's (over all rounds, then the lowest and highest of the
// rounds' own ratios, each against the leanest proxy's CPU in the same round: their spread is the machine's noise,
// and a difference smaller than it is not one), added TTFT p50 and p99 and added inter-chunk gap p99
// (proxy percentile minus direct percentile, client-observed), requests/s relative to direct, and the proxy's
// peak RSS.
//
// CPU is read from /proc/<pid>/stat (utime + stime, in clock ticks) for the proxy's process and its children
// (nginx's worker), before and after each measured round. Not the child's process.cpuUsage() over IPC: nginx is
// not Node, and answering an IPC query would itself run on the event loop being measured. Ticks are coarse (10 ms
// at the usual 100 per second), but a round of a few seconds costs a proxy hundreds of milliseconds, so two reads
// per round err by a few percent at most, and less once rounds are summed.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { cpuMs, processTree, rssMb } from './helpers/process-usage.js';

const SELF = fileURLToPath(import.meta.url);
const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    tokens: { type: 'string', default: '10' },
    // Gap between tokens per concurrency: lower rates at 256 so the shared 2 cores are not saturated.
    'itl-ms': { type: 'string', default: '16:40,256:100' },
    concurrency: { type: 'string', default: '16,256' },
    cores: { type: 'string', default: String(availableParallelism()) },
    // Profiles the leanest proxy, the Fastify floor and the gateway (node --cpu-prof) into this folder.
    'cpu-prof-dir': { type: 'string' },
    // Another compiled tree's dist folder: its gateway is measured beside this one's ("gateway baseline").
    'baseline-build': { type: 'string' },
    only: { type: 'string' },
  },
});
const CPUS = `0-${Math.max(0, Math.min(availableParallelism(), Number(args.cores) || 1) - 1)}`;

function announce(port: number): void {
  process.stdout.write(`PORT ${port}\n`);
}

async function runUpstream(tokens: number): Promise<void> {
  const chunk = (delta: string, finish: string | null): string =>
    `data: {"id":"b","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":${delta},"finish_reason":${finish === null ? 'null' : `"${finish}"`}}]}\n\n`;
  const content = chunk('{"content":" tok"}', null);
  const tail = `${chunk('{}', 'stop')}data: {"id":"b","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":${tokens},"total_tokens":${tokens + 5}}}\n\ndata: [DONE]\n\n`;
  const server = createServer((req, res) => {
    const itlMs = Number(req.headers['x-itl-ms'] ?? 40);
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk('{"role":"assistant","content":""}', null));
      let sent = 0;
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        sent++;
        res.write(content);
        if (sent === tokens) {
          clearInterval(timer);
          res.end(tail);
        }
      }, itlMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => announce((server.address() as AddressInfo).port));
}

async function runBareProxy(upstream: string): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const { default: proxy } = await import('@fastify/http-proxy');
  const app = Fastify({ logger: false });
  await app.register(proxy, { upstream, undici: { connections: 1024, pipelining: 1 } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  announce((app.server.address() as AddressInfo).port);
}

/**
 * The leanest proxy's dispatch (helpers/leanest-proxy.ts) inside a Fastify application: a wildcard route, a body
 * parser that keeps the bytes, and a hijacked reply written by the dispatch handler. What is left of Fastify's
 * cost when nothing else is added.
 */
async function runFastifyFloor(upstream: string): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const { forwardOn, leanestAgent } = await import('./helpers/leanest-proxy.js');
  const origin = new URL(upstream).origin;
  const agent = leanestAgent();
  const app = Fastify({ logger: false });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.all('/*', (request, reply) => {
    reply.hijack();
    const body = Buffer.isBuffer(request.body) ? request.body : null;
    forwardOn(agent, origin, request.raw, reply.raw, body);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  announce((app.server.address() as AddressInfo).port);
}

async function runLeanestProxy(upstream: string): Promise<void> {
  const { startLeanestProxy } = await import('./helpers/leanest-proxy.js');
  announce((await startLeanestProxy(upstream)).port);
}

/** An OTLP/HTTP collector that reads each export and answers 200 with nothing kept: export's cost is the
 *  gateway's alone. */
async function runDiscardingCollector(): Promise<void> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => announce((server.address() as AddressInfo).port));
}

// The one place that knows how the gateway is assembled, so it is easy to repoint when that moves.
async function runGateway(upstream: string, dir: string, otlpEndpoint?: string): Promise<void> {
  const { buildGateway } = await import('../plugins/index.js');
  const { createGatewayLogger, logDestination } = await import('../src/gateway/logs/logger.js');
  const { resolveConfig } = await import('../src/gateway/config/config-resolve.js');
  const { validateConfig } = await import('../src/gateway/config/config-validate.js');
  const config = await resolveConfig(
    validateConfig({
      upstreams: [{ name: 'bench', baseUrl: upstream, keyless: true }],
      records: { file: join(dir, otlpEndpoint === undefined ? 'records.jsonl' : 'records-otlp.jsonl') },
      ...(otlpEndpoint === undefined ? {} : { otlpEndpoint }),
    }),
  );
  // The gateway's own logger, as `tokenmeter serve` builds it, writing to a file instead of stdout.
  const logger = createGatewayLogger(
    'info',
    logDestination(join(dir, otlpEndpoint === undefined ? 'gateway.log' : 'gateway-otlp.log')),
  );
  const { app } = await buildGateway(config, { logger });
  await app.listen({ host: '127.0.0.1', port: 0 });
  announce((app.server.address() as AddressInfo).port);
}

const PROFILED = new Set(['leanest', 'floor', 'gateway']);
/** Every child started, so none outlives a run that failed half-way (a target that would not start). */
const children: ChildProcess[] = [];

/** Starts `argv`'s role in a child process running `script` (this file, or the baseline build's copy of it). */
function startChild(argv: string[], script = SELF): Promise<{ child: ChildProcess; port: number }> {
  const dir = args['cpu-prof-dir'];
  const role = argv[0] ?? '';
  const profile =
    dir !== undefined && PROFILED.has(role)
      ? [
          '--cpu-prof',
          '--cpu-prof-dir',
          dir,
          '--cpu-prof-name',
          `${role}${argv[3] === undefined ? '' : '-otlp'}${script === SELF ? '' : '-baseline'}.cpuprofile`,
        ]
      : [];
  const child = spawn('taskset', ['-c', CPUS, process.execPath, ...profile, script, ...argv], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      const port = /PORT (\d+)/.exec(d.toString())?.[1];
      if (port) resolve({ child, port: Number(port) });
    });
    child.once('exit', (code) => reject(new Error(`${argv[0]} exited with ${code}`)));
  });
}

function startNginx(dir: string, upstreamPort: number, port: number): ChildProcess | undefined {
  if (spawnSync('nginx', ['-v']).error) return undefined;
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'])
    mkdirSync(join(dir, sub), { recursive: true });
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes 1; pid ${dir}/nginx.pid; error_log ${dir}/nginx-error.log warn;
events { worker_connections 4096; }
http { access_log off; client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  upstream up { server 127.0.0.1:${upstreamPort}; keepalive 1024; }
  server { listen 127.0.0.1:${port};
    location / { proxy_pass http://up; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_buffering off; } } }
`,
  );
  return spawn('taskset', ['-c', CPUS, 'nginx', '-c', conf, '-p', dir, '-g', 'daemon off;'], {
    stdio: 'inherit',
  });
}

interface Samples {
  ttft: number[];
  gaps: number[];
  done: number;
  seconds: number;
  rss: number;
  cpuMs: number;
}

const noSamples = (): Samples => ({ ttft: [], gaps: [], done: 0, seconds: 0, rss: 0, cpuMs: 0 });

async function load(
  port: number,
  concurrency: number,
  itlMs: number,
  seconds: number,
  into: Samples,
  pids: readonly number[],
): Promise<void> {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: concurrency, pipelining: 1 });
  const body = JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] });
  const deadline = performance.now() + seconds * 1000;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const start = performance.now();
      const res = await pool.request({
        path: '/v1/chat/completions',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-itl-ms': String(itlMs) },
        body,
      });
      let last = Number.NaN;
      for await (const piece of res.body) {
        if (!(piece as Buffer).includes('"content":" tok"')) continue;
        const now = performance.now();
        if (Number.isNaN(last)) into.ttft.push(now - start);
        else into.gaps.push(now - last);
        last = now;
      }
      into.done++;
    }
  };
  const sampler = setInterval(() => {
    into.rss = Math.max(into.rss, rssMb(pids));
  }, 500);
  const cpuBefore = cpuMs(pids);
  await Promise.all(Array.from({ length: concurrency }, worker));
  into.cpuMs += cpuMs(pids) - cpuBefore;
  clearInterval(sampler);
  into.seconds += seconds;
  await pool.close();
}

function pct(values: number[], p: number): number {
  const sorted = Float64Array.from(values).sort();
  if (sorted.length === 0) return Number.NaN;
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  return (sorted[lo] ?? 0) + ((sorted[Math.ceil(rank)] ?? 0) - (sorted[lo] ?? 0)) * (rank - lo);
}

const loadAverage = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function drive(): Promise<void> {
  process.once('exit', () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  });
  spawnSync('taskset', ['-a', '-cp', CPUS, String(process.pid)], { stdio: 'ignore' });
  const dir = mkdtempSync(join(tmpdir(), 'tokenmeter-bench-'));
  const seconds = Number(args.seconds);
  const up = await startChild(['upstream', args.tokens ?? '10']);
  const upstreamUrl = `http://127.0.0.1:${up.port}`;
  // Direct and the leanest proxy always run: every figure is against them. Targets left out are not started: an idle
  // proxy would still wake on its timers beside the ones being measured.
  const only = args.only === undefined ? null : new Set(['direct', 'leanest', ...args.only.split(',')]);
  const kept = (key: string): boolean => only === null || only.has(key);
  const tree = (child: ChildProcess | undefined): number[] =>
    child?.pid === undefined ? [] : processTree(child.pid);
  const started: ChildProcess[] = [up.child];
  // Each target's process tree is read once all have started and settled (below): nginx forks its worker after
  // it starts, so a tree read at once would leave the worker's CPU out.
  const measured: { name: string; port: number; child?: ChildProcess; pids: number[] }[] = [
    { name: 'direct', port: up.port, pids: [] },
  ];
  const startTarget = async (key: string, name: string, argv: string[], script?: string): Promise<void> => {
    if (!kept(key)) return;
    const target = await startChild(argv, script);
    started.push(target.child);
    measured.push({ name, port: target.port, child: target.child, pids: [] });
  };
  await startTarget('leanest', 'leanest Node proxy', ['leanest', upstreamUrl]);
  await startTarget('floor', 'Fastify floor', ['floor', upstreamUrl]);
  await startTarget('bare', 'bare http-proxy', ['bare', upstreamUrl]);
  let nginx: ChildProcess | undefined;
  if (kept('nginx')) {
    const nginxPort = 20000 + Math.floor(Math.random() * 20000);
    nginx = startNginx(dir, up.port, nginxPort);
    if (nginx !== undefined) {
      started.push(nginx);
      measured.push({ name: 'nginx', port: nginxPort, child: nginx, pids: [] });
    }
  }
  await startTarget('gateway', 'tokenmeter gateway', ['gateway', upstreamUrl, dir]);
  if (kept('otlp')) {
    const collector = await startChild(['collector']);
    started.push(collector.child);
    await startTarget('otlp', 'gateway + OTLP export', [
      'gateway',
      upstreamUrl,
      dir,
      `http://127.0.0.1:${collector.port}`,
    ]);
  }
  const baselineBuilds = args['baseline-build']?.split(',') ?? [];
  for (const [i, build] of baselineBuilds.entries()) {
    const own = join(dir, `baseline-${i + 1}`);
    mkdirSync(own);
    const name = baselineBuilds.length === 1 ? 'gateway baseline' : `gateway baseline ${i + 1}`;
    await startTarget(
      'baseline',
      name,
      ['gateway', upstreamUrl, own],
      resolve(build, 'bench', 'gateway-overhead.js'),
    );
  }
  await new Promise((r) => setTimeout(r, 500));
  for (const target of measured) target.pids = tree(target.child);
  const itlByConcurrency = new Map(
    (args['itl-ms'] ?? '').split(',').map((pair) => pair.split(':').map(Number) as [number, number]),
  );
  console.log(
    `tokens ${args.tokens}, ${seconds} s x ${args.rounds} rounds per target, CPUs ${CPUS}${kept('nginx') && nginx === undefined ? ' (nginx not installed: skipped)' : ''}`,
  );
  console.log(`load average (1, 5, 15 min) at start: ${loadAverage()}`);
  for (const concurrency of (args.concurrency ?? '16,256').split(',').map(Number)) {
    const itl = itlByConcurrency.get(concurrency) ?? 40;
    const results = new Map(measured.map(({ name }) => [name, noSamples()]));
    // Each round's CPU per request, per target: the ratio's spread over rounds says how noisy the machine was.
    const perRound = new Map<string, number[]>(measured.map(({ name }) => [name, []]));
    // Warm-up (JIT, connection pools) is not counted.
    for (const { port } of measured) await load(port, concurrency, itl, 1, noSamples(), []);
    for (let round = 0; round < Number(args.rounds); round++) {
      const order = measured.map((_, i) => measured[(i + round) % measured.length]);
      for (const target of order) {
        if (target === undefined) continue;
        const samples = results.get(target.name) as Samples;
        const before = { cpuMs: samples.cpuMs, done: samples.done };
        await load(target.port, concurrency, itl, seconds, samples, target.pids);
        perRound.get(target.name)?.push((samples.cpuMs - before.cpuMs) / (samples.done - before.done));
      }
    }
    const d = results.get('direct') as Samples;
    const base = {
      p50: pct(d.ttft, 50),
      p99: pct(d.ttft, 99),
      gap99: pct(d.gaps, 99),
      rps: d.done / d.seconds,
    };
    const lean = results.get('leanest Node proxy') as Samples;
    const leanCpu = lean.cpuMs / lean.done;
    const leanRounds = perRound.get('leanest Node proxy') ?? [];
    /** The lowest and highest of the rounds' ratios to the leanest proxy's CPU per request in the same round. */
    const roundSpread = (name: string): string => {
      const ratios = (perRound.get(name) ?? []).map((cpu, i) => cpu / (leanRounds[i] ?? Number.NaN));
      return ratios.length < 2 ? '' : `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`;
    };
    console.log(
      `\nconcurrency ${concurrency}, first token at ${itl} ms then one every ${itl} ms: direct TTFT p50 ${base.p50.toFixed(2)} ms p99 ${base.p99.toFixed(2)} ms, gap p99 ${base.gap99.toFixed(2)} ms, ${base.rps.toFixed(1)} req/s`,
    );
    console.log(
      'proxy                 CPU/req ms  x leanest  rounds     added TTFT p50  added TTFT p99   added gap p99  req/s ratio  RSS MB',
    );
    for (const [name, s] of results) {
      if (name === 'direct') continue;
      const cpu = s.cpuMs / s.done;
      const row = [pct(s.ttft, 50) - base.p50, pct(s.ttft, 99) - base.p99, pct(s.gaps, 99) - base.gap99];
      console.log(
        `${name.padEnd(22)}${cpu.toFixed(3).padStart(10)}  ${(cpu / leanCpu).toFixed(2).padStart(9)}  ${roundSpread(name).padEnd(9)}${row.map((v) => `${v.toFixed(3)} ms`.padStart(16)).join('')}  ${(s.done / s.seconds / base.rps).toFixed(3).padStart(11)}  ${s.rss.toFixed(0).padStart(6)}`,
      );
    }
  }
  console.log(`\nload average (1, 5, 15 min) at the end: ${loadAverage()}`);
  for (const child of started) child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  rmSync(dir, { recursive: true, force: true });
}

// Children exit normally on SIGTERM, so `node --cpu-prof` can write its profile.
if (positionals[0] !== undefined) process.once('SIGTERM', () => process.exit(0));
const [role, a, b, c] = positionals;
if (role === 'upstream') await runUpstream(Number(a));
else if (role === 'leanest') await runLeanestProxy(a ?? '');
else if (role === 'floor') await runFastifyFloor(a ?? '');
else if (role === 'bare') await runBareProxy(a ?? '');
else if (role === 'gateway') await runGateway(a ?? '', b ?? '', c);
else if (role === 'collector') await runDiscardingCollector();
else await drive();
