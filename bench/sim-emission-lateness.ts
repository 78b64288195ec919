// How late does the simulator write chunks when 1,000 streams are open at once?
//
//   npm run build && node dist/bench/sim-emission-lateness.js [--streams 1000] [--itl-ms 20] [--tokens 200]
//
// The simulator runs as its own process (the real `tokenmeter sim` CLI) so the client's work does not share its
// event loop; the client holds every stream open at once over an undici pool, and reads the simulator's own
// measurement of lateness (actual write time minus planned time, per chunk) from /sim/stats at the end.
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { spawnSimulator } from './helpers/spawn-simulator.js';

const { values } = parseArgs({
  options: {
    streams: { type: 'string', default: '1000' },
    'itl-ms': { type: 'string', default: '20' },
    tokens: { type: 'string', default: '200' },
    jitter: { type: 'string', default: '0.1' },
  },
});
const streams = Number(values.streams);
const itlMs = Number(values['itl-ms']);
const tokens = Number(values.tokens);

const { url, process: sim } = await spawnSimulator([
  '--max-num-seqs',
  String(streams),
  '--batch-slowdown',
  '0',
  '--itl-ms',
  String(itlMs),
  '--jitter',
  String(values.jitter),
]);

const pool = new Pool(url, { connections: streams, pipelining: 1 });
const body = JSON.stringify({
  model: 'tokenmeter/sim-7b',
  messages: [{ role: 'user', content: 'Measure the simulator.' }],
  max_tokens: tokens,
  ignore_eos: true,
  stream: true,
});
const started = performance.now();
let open = 0;
let peakOpen = 0;
let failed = 0;
let steadyFrom = 0;
type Lateness = {
  count: number;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
};
const readLateness = async () =>
  ((await (await fetch(`${url}/sim/stats`)).json()) as { emissionLateness: Lateness }).emissionLateness;
let burst: Lateness | undefined;
const onAllOpen = async () => {
  // Everything before this moment includes accepting 1,000 connections and parsing 1,000 bodies at once.
  burst = await readLateness();
  await fetch(`${url}/sim/stats`, { method: 'DELETE' });
  steadyFrom = performance.now();
};
let steadyReset: Promise<void> | undefined;
await Promise.all(
  Array.from({ length: streams }, async () => {
    try {
      const res = await pool.request({ method: 'POST', path: '/v1/chat/completions', body });
      open++;
      peakOpen = Math.max(peakOpen, open);
      if (open === streams) steadyReset = onAllOpen();
      for await (const _ of res.body) {
        // Drain: the simulator measures its own lateness.
      }
      open--;
    } catch {
      failed++;
    }
  }),
);
const ended = performance.now();
await steadyReset;
const steady = await readLateness();
await pool.close();
sim.kill('SIGTERM');

const wallS = (ended - started) / 1000;
const format = (l: Lateness) =>
  `${l.count} chunks, mean ${l.meanMs.toFixed(3)} p50 ${l.p50Ms.toFixed(2)} p99 ${l.p99Ms.toFixed(2)} p99.9 ${l.p999Ms.toFixed(2)} max ${l.maxMs.toFixed(2)}`;
console.log(
  `streams=${streams} itl=${itlMs}ms jitter=${values.jitter} tokens=${tokens} peak_open=${peakOpen} failed=${failed}`,
);
console.log(`wall ${wallS.toFixed(2)} s (ideal ${((tokens * itlMs) / 1000).toFixed(2)} s)`);
if (burst) console.log(`lateness ms while ${streams} streams opened at once: ${format(burst)}`);
if (steadyFrom > 0) {
  const rate = Math.round(steady.count / ((ended - steadyFrom) / 1000));
  console.log(`lateness ms with all ${streams} streams open (${rate} chunks/s): ${format(steady)}`);
}
