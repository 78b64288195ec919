// Capacity of the load generator itself on this machine:
//   1. the highest open-loop rate it holds with schedule lag p99 under 2 ms (short answers, so the rate, not the
//      streams, is the load);
//   2. the most concurrent streams it sustains: C streams opened at once, each a 200-token answer at 20 ms per
//      token; sustained = every request succeeds and the measured ITL p99 stays under 2x the configured 20 ms.
//
//   npm run build && node dist/bench/loadgen-capacity.js [--rates 100,200,400,800] [--seconds 3] [--streams 250,500,1000]
//
// The simulator runs as its own process (the real `tokenmeter sim` CLI), so the load generator's event loop is
// its own; the figures therefore describe our client, not the simulator (which has its own bench,
// sim-emission-lateness.ts). On a shared 2-core box both processes compete for the cores: run it on a quiet machine.
import { parseArgs } from 'node:util';
import { arrivalSchedule } from '../loadgen/arrivals.js';
import { prepareRequests } from '../loadgen/bench/prepare-requests.js';
import { sampleRandom } from '../loadgen/datasets/random-dataset.js';
import { createOpenLoopEngine } from '../loadgen/engine/open-loop-engine.js';
import { percentile } from '../loadgen/metrics/numpy-stats.js';
import { type RequestRecord, scheduleLagMs } from '../loadgen/record.js';
import { builtinTokenizer } from '../loadgen/tokenizer/tokenizer.js';
import { spawnSimulator } from './helpers/spawn-simulator.js';

const { values } = parseArgs({
  options: {
    rates: { type: 'string', default: '100,200,400,800' },
    seconds: { type: 'string', default: '3' },
    streams: { type: 'string', default: '250,500,1000' },
  },
});
const numbers = (text: string): number[] => text.split(',').map(Number);
const { url, process: sim } = await spawnSimulator([
  '--max-num-seqs',
  '100000',
  '--batch-slowdown',
  '0',
  '--jitter',
  '0',
  '--ttft-ms',
  '5',
  '--prefill-ms-per-token',
  '0',
  '--itl-ms',
  '20',
  '--max-model-len',
  '100000',
]);

async function run(count: number, outputTokens: number, offsetsMs: number[]): Promise<RequestRecord[]> {
  const dataset = sampleRandom({
    numPrompts: count,
    seed: 1,
    tokenizer: builtinTokenizer,
    inputLen: 16,
    outputLen: outputTokens,
  });
  const payload = {
    protocol: 'openai-chat',
    model: 'tokenmeter/sim-7b',
    chatContent: 'string',
    maxTokensField: 'max_tokens',
    ignoreEos: true,
    includeUsage: true,
    temperature: 0,
    extraBody: {},
  } as const;
  const records: RequestRecord[] = [];
  await createOpenLoopEngine({ offsetsMs }).run({
    target: {
      origin: url,
      path: '/v1/chat/completions',
      headers: { 'content-type': 'application/json' },
      protocol: 'openai-chat',
    },
    requests: prepareRequests(dataset.requests, payload, `cap-${count}-`),
    tokenizer: builtinTokenizer,
    keepText: false,
    idleTimeoutMs: 60_000,
    errorBodyBytes: 256,
    signal: new AbortController().signal,
    onRecord: (r) => records.push(r),
  });
  return records;
}

// Warm-up (not reported): JIT-compiles the send and parse paths and opens the first connections.
await run(200, 4, arrivalSchedule(200, { requestRate: 100, burstiness: 1, seed: 2 }).offsetsMs);

const p = (values: number[], q: number): string =>
  values.length === 0 ? '-' : percentile(values, q).toFixed(2);
console.log(
  'open-loop rate (short answers: 4 tokens)\n| rate (req/s) | requests | ok | lag p50 (ms) | lag p99 (ms) | lag max (ms) |\n| --- | --- | --- | --- | --- | --- |',
);
for (const rate of numbers(values.rates)) {
  const count = Math.round(rate * Number(values.seconds));
  const offsets = arrivalSchedule(count, { requestRate: rate, burstiness: 1, seed: 1 }).offsetsMs;
  const records = await run(count, 4, offsets);
  const lags = records.map(scheduleLagMs).filter((l): l is number => l !== null);
  const ok = records.filter((r) => r.outcome === 'ok').length;
  console.log(
    `| ${rate} | ${count} | ${ok} | ${p(lags, 50)} | ${p(lags, 99)} | ${Math.max(...lags).toFixed(2)} |`,
  );
}
console.log(
  '\nconcurrent streams (200 tokens at 20 ms each, all opened at once)\n| streams | ok | ITL p50 (ms) | ITL p99 (ms) | TTFT p99 (ms) |\n| --- | --- | --- | --- | --- |',
);
for (const streams of numbers(values.streams)) {
  const records = await run(streams, 200, new Array(streams).fill(0));
  const ok = records.filter((r) => r.outcome === 'ok');
  const itls = ok.flatMap((r) => r.itlMs);
  const ttfts = ok.map((r) => r.ttftMs).filter((t): t is number => t !== null);
  console.log(`| ${streams} | ${ok.length} | ${p(itls, 50)} | ${p(itls, 99)} | ${p(ttfts, 99)} |`);
}
sim.kill('SIGTERM');
