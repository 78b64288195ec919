// Time benchmark of `compare`'s bootstrap on large runs: how long the intervals of two runs take, the part of
// `compare` that grows with the number of requests. Not part of `npm test`. Run from the repository root:
//
//   npm run build && node dist/bench/compare-bootstrap.js [requests per run, default 10000] [tokens, default 200]
//
// It builds two synthetic runs of that many completed requests (seeded: TTFT 50-350 ms, `tokens` output tokens
// each with gaps of 5-25 ms, sent at 20 req/s), wraps each as `loadRun` would return it, and times compareRuns
// (every row's intervals for both runs) three times, printing wall and CPU time of each.

import { performance } from 'node:perf_hooks';
import { RESAMPLES } from '../loadgen/compare/bootstrap.js';
import { compareRuns } from '../loadgen/compare/compare-runs.js';
import type { LoadedRun } from '../loadgen/compare/run-records.js';
import { extraMetrics } from '../loadgen/metrics/extra-metrics.js';
import { vllmMetrics } from '../loadgen/metrics/vllm-metrics.js';
import type { RequestRecord } from '../loadgen/record.js';
import { buildResultJson } from '../loadgen/report/result-json.js';
import { SeededRandom } from '../src/shared/random.js';

const requests = Number(process.argv[2] ?? 10_000);
const tokens = Number(process.argv[3] ?? 200);

function syntheticRun(seed: number): LoadedRun {
  const random = new SeededRandom(seed);
  const records: RequestRecord[] = Array.from({ length: requests }, (_, index) => {
    const ttftMs = 50 + 300 * random.next();
    const itlMs = Array.from({ length: tokens - 1 }, () => 5 + 20 * random.next());
    const sentAtMs = index * 50;
    return {
      index,
      intendedOffsetMs: sentAtMs,
      sentAtMs,
      clientQueueMs: 0,
      ttfbMs: ttftMs - 2,
      ttftMs,
      itlMs,
      lastTokenMs: ttftMs + itlMs.reduce((a, b) => a + b, 0),
      outputTokens: tokens,
      outputTokensSource: 'usage',
      promptTokens: 100,
      contentChunks: tokens,
      outcome: 'ok',
      status: 200,
      error: null,
      errorBodyExcerpt: null,
      generatedTextLength: 4 * tokens,
    };
  });
  const end = Math.max(...records.map((r) => (r.sentAtMs ?? 0) + (r.lastTokenMs ?? 0)));
  const metrics = vllmMetrics(records, { durationMs: end, metricPercentiles: [99] });
  const run = {
    date: new Date(),
    backend: 'openai-chat',
    modelId: 'm',
    tokenizerId: 'm',
    numPrompts: requests,
    requestRate: 20,
    burstiness: 1,
    percentileMetrics: ['ttft', 'tpot', 'itl', 'e2el'] as const,
  };
  const json = JSON.parse(
    JSON.stringify(buildResultJson(run, metrics, extraMetrics(records, [99]), records, false)),
  );
  return { path: `run-${seed}.json`, json, records: { records, source: 'synthetic' } };
}

const runs = [syntheticRun(1), syntheticRun(2)];
console.log(
  `${requests} requests x ${tokens} tokens per run (${requests * (tokens - 1)} gaps), ${RESAMPLES} resamples`,
);
// CPU time beside wall time: on a shared machine the wall time also counts other processes' turns.
for (let i = 0; i < 3; i++) {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const comparison = compareRuns(runs);
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const tested = comparison.rows.filter((row) => row.decision === 'tested').length;
  console.log(
    `compareRuns: ${ms.toFixed(0)} ms wall, ${((used.user + used.system) / 1000).toFixed(0)} ms CPU ` +
      `(${tested} of ${comparison.rows.length} rows with intervals)`,
  );
}
