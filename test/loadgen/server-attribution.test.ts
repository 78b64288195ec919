// What the server's metrics attribute a run's verdicts to, on real runs of bench's CLI against the simulator:
// - a TTFT spread defers to the server verdict instead of calling its cause unknown;
// - a success rate under the floor with the KV cache full and sequences preempted is memory-bound, with the flags;
// - a run bounded by neither memory nor seats says where the TTFT went with the server's and the client's numbers.
// Each run takes a few seconds at most.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { type SimOptions, startSimulator } from '../../src/sim/index.js';
import type { CliResult } from '../helpers/run-cli.js';
import { bench, cleanEnv, scratchDir } from './helpers/bench-cli.js';

async function benchAgainst(options: SimOptions, args: string[]): Promise<CliResult> {
  const sim = await startSimulator({ seed: 12, ...options });
  try {
    const run = await bench(
      [
        '--base-url',
        sim.url,
        '--ignore-eos',
        '--server-metrics-interval',
        '0.2',
        '--disable-tqdm',
        '--result-dir',
        scratchDir(),
        ...args,
      ],
      cleanEnv(),
    );
    assert.notEqual(run.code, 2, run.stderr);
    return run;
  } finally {
    await sim.close();
  }
}

const verdictsOf = (stdout: string): string => stdout.slice(stdout.indexOf('Verdicts'));

test('a TTFT spread with server metrics defers to the server verdict, not "cause unknown"', async () => {
  // One seat: 20 requests 60 ms apart, each alone, then 5 at once, which queue behind each other. Most TTFTs are
  // the 10 ms alone; the burst's last ones wait for 3 or 4 answers (about 25 ms each): p99 several times the median.
  const trace = join(scratchDir(), 'burst.jsonl');
  const lines = Array.from({ length: 25 }, (_, i) =>
    JSON.stringify({
      timestamp: i < 20 ? i * 60 : 20 * 60,
      input_length: 16,
      output_length: 4,
      hash_ids: [i],
    }),
  );
  writeFileSync(trace, `${lines.join('\n')}\n`);
  const run = await benchAgainst(
    { timing: { ttftMs: 10, itlMs: 5, jitter: 0, prefillMsPerToken: 0, maxNumSeqs: 1, batchSlowdown: 0 } },
    ['--dataset-name', 'mooncake', '--dataset-path', trace, '--num-prompts', '25'],
  );
  const verdicts = verdictsOf(run.stdout);
  assert.match(verdicts, /^TTFT p99 [\d.]+ ms is [\d.]+x the median/m, verdicts);
  assert.match(verdicts, /^Cause: the server verdict below, from the server's own metrics\.$/m);
  assert.doesNotMatch(verdicts, /Cause unknown|span receiver/);
  assert.match(
    verdicts,
    /^server \(behind the ttft-spread above\): .*the server's own TTFT p50 is [\d.]+ ms \(\d+%\) of the client's [\d.]+ ms/m,
  );
});

test('a success rate under the floor with the KV cache full and preemptions is attributed memory-bound', async () => {
  // 320 tokens of KV cache: three answers of 92 tokens (6 blocks of 16) at once, though 16 seats would take more;
  // 45 req/s for 60 requests queue seconds deep, and a request silent for 1 s fails (--idle-timeout).
  const run = await benchAgainst(
    {
      timing: {
        ttftMs: 20,
        itlMs: 4,
        jitter: 0,
        prefillMsPerToken: 0,
        maxNumSeqs: 16,
        maxModelLen: 256,
        batchSlowdown: 0,
      },
      kv: { kvCacheTokens: 320 },
    },
    [
      '--dataset-name',
      'random',
      '--random-input-len',
      '32',
      '--random-output-len',
      '60',
      '--num-prompts',
      '60',
      '--request-rate',
      '45',
      '--idle-timeout',
      '1',
    ],
  );
  assert.equal(run.code, 1, 'under the success floor');
  const verdicts = verdictsOf(run.stdout);
  assert.match(verdicts, /^success rate [\d.]+% \(\d+ of 60\) is below 90\.0%/m, verdicts);
  assert.match(
    verdicts,
    /^server \(behind the low-success-rate[a-z -]* above\): memory-bound: KV cache usage peaked at (9[5-9]|100)\.\d% and the server preempted [1-9]\d* sequences? for want of KV blocks \(\d+ requests waiting at most\): raise --gpu-memory-utilization, lower --max-model-len or --max-num-seqs, or add replicas/m,
  );
});

test('neither memory- nor concurrency-bound: the verdict quotes the server TTFT against the client TTFT', async () => {
  // Seats and KV cache to spare, half the answers failed by the simulator: the success rate is low, and the server
  // was bound by neither.
  const run = await benchAgainst(
    {
      timing: { ttftMs: 20, itlMs: 2, jitter: 0, prefillMsPerToken: 0, maxNumSeqs: 64, batchSlowdown: 0 },
      faults: { errorRate: 0.5 },
    },
    [
      '--dataset-name',
      'random',
      '--random-input-len',
      '16',
      '--random-output-len',
      '10',
      '--num-prompts',
      '40',
      '--request-rate',
      '40',
    ],
  );
  const verdicts = verdictsOf(run.stdout);
  assert.match(
    verdicts,
    /^server \(behind the low-success-rate[a-z -]* above\): neither memory- nor concurrency-bound \(KV cache usage peaked at [\d.]+%, 0 preemptions, requests waited in \d+ of \d+ samples\), so the time went to the server's compute, the network or the client: the server's own TTFT p50 is [\d.]+ ms \(\d+%\) of the client's [\d.]+ ms \(p99 [\d.]+ of [\d.]+\): /m,
    verdicts,
  );
  assert.doesNotMatch(verdicts, /Where TTFT goes/);
});
