// What bounded the server, from its metrics: the rules on summaries at and around their limits, and a real run
// against a simulator with few seats, whose verdict names --max-num-seqs with the numbers it saw.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ServerSummary } from '../../loadgen/server-metrics/server-summary.js';
import { diagnoseServer, ttftSplit } from '../../loadgen/server-metrics/server-verdict.js';
import { startSimulator } from '../../src/sim/index.js';
import { bench, cleanEnv, scratchDir } from './helpers/bench-cli.js';

const QUIET: ServerSummary = {
  samples: 20,
  peakKvUsage: 0.4,
  preemptions: 0,
  maxRunning: 12,
  maxWaiting: 0,
  waitingAtBaseline: 0,
  samplesWaiting: 0,
  samplesWaitingAtRunningCap: 0,
  prefixHitRate: null,
  specAcceptance: null,
  serverTtft: { count: 100, p50Ms: 40, p99Ms: 90, p50BucketMs: [30, 50], p99BucketMs: [80, 100] },
  queueTime: null,
  readCpuMeanMs: 0.2,
  readCpuMaxMs: 0.4,
};

test('memory-bound takes KV usage at 95% and preemptions; either alone is not enough', () => {
  const full = diagnoseServer({ ...QUIET, peakKvUsage: 0.95, preemptions: 3, maxWaiting: 9 });
  assert.equal(full.bound, 'memory-bound');
  assert.match(full.sentence, /KV cache usage peaked at 95\.0% and the server preempted 3 sequences/);
  assert.match(
    full.sentence,
    /raise --gpu-memory-utilization, lower --max-model-len or --max-num-seqs, or add replicas/,
  );
  assert.equal(diagnoseServer({ ...QUIET, peakKvUsage: 0.949, preemptions: 3 }).bound, 'neither');
  assert.equal(diagnoseServer({ ...QUIET, peakKvUsage: 0.99, preemptions: 0 }).bound, 'neither');
});

test('concurrency-bound: waiting while running sits at its cap in half the samples, with KV to spare', () => {
  const capped = { ...QUIET, maxWaiting: 30, samplesWaiting: 10, samplesWaitingAtRunningCap: 5 };
  const verdict = diagnoseServer(capped);
  assert.equal(verdict.bound, 'concurrency-bound');
  assert.match(
    verdict.sentence,
    /running stayed at 12 \(its cap\) in 5 of the 10 samples with requests waiting \(up to 30\)/,
  );
  assert.match(verdict.sentence, /KV cache usage peaked at 40\.0%, room to spare: raise --max-num-seqs/);
  assert.equal(diagnoseServer({ ...capped, samplesWaitingAtRunningCap: 4 }).bound, 'neither');
  assert.equal(
    diagnoseServer({ ...capped, samplesWaiting: 1, samplesWaitingAtRunningCap: 1 }).bound,
    'neither',
  );
});

test("the server's TTFT against the client's splits what is outside the server", () => {
  assert.equal(
    ttftSplit(QUIET, { p50Ms: 50, p99Ms: 120 }),
    "the server's own TTFT p50 is 40.00 ms (80%) of the client's 50.00 ms (p99 90.00 of 120.00): 10.00 ms (20%) is outside the server (network, gateway, client)",
  );
  assert.equal(ttftSplit({ ...QUIET, serverTtft: null }, { p50Ms: 50, p99Ms: 120 }), undefined);
});

test('neither bound: the sentence quotes the server TTFT against the client TTFT, not another section', () => {
  assert.equal(
    diagnoseServer(QUIET, { p50Ms: 50, p99Ms: 120 }).sentence,
    'neither memory- nor concurrency-bound (KV cache usage peaked at 40.0%, 0 preemptions, requests waited in 0 of ' +
      "20 samples), so the time went to the server's compute, the network or the client: the server's own TTFT p50 " +
      "is 40.00 ms (80%) of the client's 50.00 ms (p99 90.00 of 120.00): 10.00 ms (20%) is outside the server " +
      '(network, gateway, client)',
  );
  assert.match(
    diagnoseServer({ ...QUIET, serverTtft: null }, { p50Ms: 50, p99Ms: 120 }).sentence,
    /: the server exports no TTFT histogram to split its share from the rest$/,
  );
});

test('a real overload of a 2-seat simulator: the concurrency-bound verdict, with its numbers', async () => {
  const sim = await startSimulator({
    seed: 9,
    timing: { ttftMs: 20, itlMs: 4, jitter: 0, prefillMsPerToken: 0, maxNumSeqs: 2, batchSlowdown: 0 },
  });
  try {
    const run = await bench(
      [
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
        '60',
        '--request-rate',
        '60',
        '--disable-tqdm',
        '--server-metrics-interval',
        '0.1',
        '--result-dir',
        scratchDir(),
      ],
      cleanEnv(),
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      /^server(?: \(behind the [a-z -]+ above\))?: concurrency-bound: running stayed at 2 \(its cap\) in \d+ of the \d+ samples with requests waiting \(up to \d+\), (?:0 preemptions|preemptions not exported), (?:KV cache usage not exported, so memory is not ruled out|KV cache usage peaked at [\d.]+%, room to spare): raise --max-num-seqs/m,
    );
    assert.match(run.stdout, /the server's own TTFT p50 is [\d.]+ ms \(\d+%\) of the client's [\d.]+ ms/);
  } finally {
    await sim.close();
  }
});
