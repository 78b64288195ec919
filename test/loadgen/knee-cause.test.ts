// Why the knee is where it is, from real sweeps against the simulator's KV model: with a small KV cache the knee
// coincides with KV usage at 95% or more and preemptions, and the sweep says memory-bound and names vLLM's flags;
// with a large KV cache and few seats, requests wait while running sits at the seats, and it says
// concurrency-bound and names --max-num-seqs. Two levels each, one below and one well above the capacity.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { type SimOptions, startSimulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/run-cli.js';
import { cleanEnv, scratchDir } from './helpers/bench-cli.js';

// Each answer: 32 prompt tokens and 60 output tokens (6 KV blocks of 16), 20 ms + 59 x 4 ms = 256 ms.
const TIMING = { ttftMs: 20, itlMs: 4, jitter: 0, prefillMsPerToken: 0, batchSlowdown: 0 };

interface Level {
  offered_rate: number;
  status: string;
  server: {
    peak_kv_cache_usage: number | null;
    preemptions: number | null;
    max_requests_running: number | null;
  };
}
interface Summary {
  levels: Level[];
  knee: { finding: string; sentence: string; cause: { bound: string; sentence: string } | null };
}

async function sweep(options: SimOptions, rates: string): Promise<{ summary: Summary; stdout: string }> {
  const sim = await startSimulator({ seed: 21, ...options });
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
        '32',
        '--random-output-len',
        '60',
        '--ignore-eos',
        '--rates',
        rates,
        '--level-seconds',
        '2',
        '--num-prompts',
        '60',
        '--server-metrics-interval',
        '0.2',
        '--result-dir',
        dir,
        '--disable-tqdm',
      ],
      cleanEnv(),
    );
    assert.equal(run.code, 0, run.stderr);
    return {
      summary: JSON.parse(readFileSync(join(dir, 'sweep-summary.json'), 'utf8')) as Summary,
      stdout: run.stdout,
    };
  } finally {
    await sim.close();
  }
}

test('a small KV cache: the knee coincides with KV usage >= 95% and preemptions, and the verdict says memory-bound', async () => {
  // 640 tokens = 40 blocks: about 6 answers at once, though 16 seats would take more.
  const { summary, stdout } = await sweep(
    { timing: { ...TIMING, maxNumSeqs: 16, maxModelLen: 256 }, kv: { kvCacheTokens: 640 } },
    '4,45',
  );
  const { knee, levels } = summary;
  assert.equal(knee.finding, 'knee', knee.sentence);
  const [good, bad] = levels as [Level, Level];
  assert.equal(bad.status, 'fell-behind');
  assert.ok((bad.server.peak_kv_cache_usage as number) >= 0.95, JSON.stringify(bad.server));
  assert.ok((bad.server.preemptions as number) > 0, JSON.stringify(bad.server));
  assert.ok(
    (good.server.peak_kv_cache_usage as number) < 0.95 || good.server.preemptions === 0,
    JSON.stringify(good.server),
  );
  assert.equal(knee.cause?.bound, 'memory-bound', knee.cause?.sentence);
  assert.match(
    knee.cause?.sentence ?? '',
    /KV cache usage peaked at (9[5-9]|100)\.\d% and the server preempted \d+ sequences/,
  );
  assert.match(
    stdout,
    /^Why: at 45\.00 req\/s, where it fell behind, the server was memory-bound: .*raise --gpu-memory-utilization, lower --max-model-len or --max-num-seqs, or add replicas/m,
  );
});

test('a large KV cache and few seats: requests wait while running sits at the seats, and the verdict says concurrency-bound', async () => {
  const { summary, stdout } = await sweep(
    { timing: { ...TIMING, maxNumSeqs: 4 }, kv: { kvCacheTokens: 100_000 } },
    '4,40',
  );
  const { knee, levels } = summary;
  assert.equal(knee.finding, 'knee', knee.sentence);
  const bad = levels[1] as Level;
  assert.equal(bad.server.max_requests_running, 4);
  assert.ok((bad.server.peak_kv_cache_usage as number) < 0.95);
  assert.equal(knee.cause?.bound, 'concurrency-bound', knee.cause?.sentence);
  assert.match(
    stdout,
    /^Why: at 40\.00 req\/s, where it fell behind, the server was concurrency-bound: running stayed at 4 \(its cap\) in \d+ of the \d+ samples with requests waiting \(up to \d+\), 0 preemptions, KV cache usage peaked at [\d.]+%, room to spare: raise --max-num-seqs/m,
  );
});
