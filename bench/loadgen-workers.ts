// How fast the load generator sends with 1 and 2 workers, and whether a worker is better a process or a thread:
// the schedule lag (p50, p99) at each open-loop rate, against nginx serving a fixed one-token SSE answer
// (bench/helpers/sse-nginx.ts), so the generator is what is measured; the highest rate with p99 under 2 ms is the
// one it holds. (Concurrent streams are measured through the real CLI, `bench --workers`: docs/loadgen-reference.md.)
// Each worker runs bench/helpers/engine-shard.ts on its shard of one seeded schedule (arrivals I, I+N, ...), all
// starting at one instant, exactly as `bench --workers N` and `--shard I/N` split a run.
//
//   npm run build && node dist/bench/loadgen-workers.js [--rates 100,200,400,800] [--seconds 3] [--warmup 1]
//       [--workers 1,2] [--modes process,thread] [--nginx-cpu 1]
//
// Every step starts fresh workers; requests due in their first --warmup seconds are sent but their lag is not
// counted (JIT and the pool's first connections), so the figures are the steady rate's.
//
// --nginx-cpu pins nginx to that core (taskset); the workers are left to the scheduler. On a 2-core box nginx and
// the workers share the cores: see docs/loadgen-reference.md for what that allows.
import { type ChildProcess, fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { percentile } from '../loadgen/metrics/numpy-stats.js';
import type { ShardFigures, ShardJob } from './helpers/engine-shard.js';
import { startSseNginx } from './helpers/sse-nginx.js';

const { values } = parseArgs({
  options: {
    rates: { type: 'string', default: '100,200,400,800' },
    seconds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    workers: { type: 'string', default: '1,2' },
    modes: { type: 'string', default: 'process,thread' },
    'nginx-cpu': { type: 'string' },
  },
});
const numbers = (text: string): number[] => text.split(',').filter(Boolean).map(Number);
const SHARD_SCRIPT = fileURLToPath(new URL('./helpers/engine-shard.js', import.meta.url));
/** Between "all ready" and t = 0: a message between processes or threads arrives well within it. */
const START_MARGIN_MS = 200;
type Mode = 'process' | 'thread';

interface Channel {
  on(listener: (message: { type: string; figures?: ShardFigures }) => void): void;
  send(message: { epochMs: number }): void;
  /** Resolves with the exit code when the worker ends (a crash must not leave the run waiting forever). */
  readonly exited: Promise<number | null>;
}

function startShard(mode: Mode, job: ShardJob): Channel {
  if (mode === 'process') {
    const child: ChildProcess = fork(SHARD_SCRIPT, [JSON.stringify(job)]);
    return {
      on: (l) => child.on('message', l as never),
      send: (m) => child.send(m),
      exited: new Promise((resolve) => child.once('exit', resolve)),
    };
  }
  const worker = new Worker(SHARD_SCRIPT, { workerData: job });
  return {
    on: (l) => worker.on('message', l),
    send: (m) => worker.postMessage(m),
    exited: new Promise((resolve) => worker.once('exit', resolve)),
  };
}

/** Runs `count` requests split over `shards` workers of `mode`; resolves with every shard's figures. */
async function runSplit(
  mode: Mode,
  shards: number,
  base: Omit<ShardJob, 'index' | 'shards'>,
): Promise<ShardFigures> {
  const channels = Array.from({ length: shards }, (_, index) => startShard(mode, { ...base, index, shards }));
  const ready = channels.map(
    (c) => new Promise<void>((resolve) => c.on((m) => m.type === 'ready' && resolve())),
  );
  const done = channels.map(
    (c) =>
      new Promise<ShardFigures>((resolve) =>
        c.on((m) => m.type === 'done' && m.figures && resolve(m.figures)),
      ),
  );
  await Promise.all(ready);
  const epochMs = Date.now() + START_MARGIN_MS;
  for (const c of channels) c.send({ epochMs });
  const all = await Promise.all(done);
  return {
    lagsMs: all.flatMap((f) => f.lagsMs),
    ok: all.reduce((n, f) => n + f.ok, 0),
    sent: all.reduce((n, f) => n + f.sent, 0),
  };
}

const p = (xs: number[], q: number): string => (xs.length === 0 ? '-' : percentile(xs, q).toFixed(2));
const load = (): string => loadavg()[0]?.toFixed(1) ?? '?';
const modes = values.modes.split(',') as Mode[];
const workerCounts = numbers(values.workers);

const pin = values['nginx-cpu'] === undefined ? undefined : Number(values['nginx-cpu']);
const nginx = await startSseNginx({ ...(pin === undefined ? {} : { cpu: pin }) });
console.log(`# ${new Date().toISOString()}; nginx ${pin === undefined ? 'unpinned' : `on CPU ${pin}`}`);
console.log('\nopen-loop rate against nginx (1-token answers), schedule lag over all workers');
console.log(`lag counted after the first ${values.warmup} s of each step`);
console.log('| mode | workers | rate (req/s) | requests | ok | lag p50 (ms) | lag p99 (ms) | load avg |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
const warmupMs = Number(values.warmup) * 1000;
const base = { url: nginx.url, model: 'nginx/fixed', outputTokens: 1, warmupMs };
// Modes take turns at each step, so a machine whose load drifts during the run does not favour one of them.
for (const mode of modes) await runSplit(mode, 1, { ...base, count: 400, rate: 200 }); // warm-up, not reported
for (const workers of workerCounts) {
  for (const rate of numbers(values.rates)) {
    for (const mode of modes) {
      const count = Math.round(rate * Number(values.seconds));
      const f = await runSplit(mode, workers, { ...base, count, rate });
      console.log(
        `| ${mode} | ${workers} | ${rate} | ${count} | ${f.ok} | ${p(f.lagsMs, 50)} | ${p(f.lagsMs, 99)} | ${load()} |`,
      );
    }
  }
}
await nginx.stop();
