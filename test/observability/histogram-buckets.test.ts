// The gateway's latency buckets resolve what LLM serving sees: PromQL's histogram_quantile p50 and p99 stay
// within 10% of the exact percentile, for synthetic spreads swept across each ladder's range and for real
// traffic read back from a real gateway's /metrics. The histogram_quantile the bound is measured with is checked
// float for float against Prometheus's own (promtool's rule unit tests evaluate real PromQL).
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { bucketed } from '../../bench/helpers/bucketed-histogram.js';
import { worstErrorAcrossRange } from '../../bench/helpers/quantile-error.js';
import { percentile } from '../../loadgen/metrics/numpy-stats.js';
import {
  FIRST_TOKEN_BUCKETS_S,
  PER_TOKEN_BUCKETS_S,
  REQUEST_BUCKETS_S,
} from '../../src/shared/latency-buckets.js';
import { type CumulativeBucket, histogramQuantile } from '../../src/shared/prometheus-text.js';
import { SeededRandom } from '../../src/shared/random.js';
import { startSimulator } from '../../src/sim/index.js';
import { startGateway } from '../gateway/helpers/gateway.js';
import { requireTool } from './helpers/external-tool.js';
import { runTool } from './helpers/promtool.js';

const BOUND = 0.1;
const LADDERS = [
  { name: 'TPOT and gaps', bounds: PER_TOKEN_BUCKETS_S, from: 1e-4, to: 10 },
  { name: 'TTFT and TTFB', bounds: FIRST_TOKEN_BUCKETS_S, from: 1e-3, to: 1000 },
  { name: 'E2E', bounds: REQUEST_BUCKETS_S, from: 1e-2, to: 10_000 },
];

test('each ladder: twenty geometric steps per decade over its stated range', () => {
  for (const { name, bounds, from, to } of LADDERS) {
    assert.equal(bounds[0], from, name);
    assert.equal(bounds.at(-1), to, name);
    assert.equal(bounds.length, Math.round(Math.log10(to / from) * 20) + 1, name);
    for (let i = 1; i < bounds.length; i++) {
      const ratio = (bounds[i] as number) / (bounds[i - 1] as number);
      // 10^(1/20) = 1.122, rounded to three digits per bound: the widest step is 7.94 -> 8.91 (and 1.12 -> 1.26).
      assert.ok(ratio > 1.11 && ratio < 1.127, `${name}: ${bounds[i - 1]} -> ${bounds[i]}`);
    }
  }
});

// Six spreads, from +-2% around the median (a steady decode step) to a factor of 10 between p50 and p99
// (prompt lengths, queueing). Measured worst (bench/histogram-error.ts): 2.8% at p50, 8.8% at p99.
for (const sigma of [0.02, 0.05, 0.1, 0.25, 0.5, 1]) {
  test(`log-normal spread sigma ${sigma} swept across every ladder: p50 and p99 within 10%`, async () => {
    for (const { name, bounds } of LADDERS) {
      for (const worst of await worstErrorAcrossRange(bounds, sigma)) {
        assert.ok(
          worst.relativeError <= BOUND,
          `${name}, p${worst.q * 100}: ${(worst.relativeError * 100).toFixed(1)}% off at median ${worst.atMedian} s`,
        );
      }
    }
  });
}

test('the old 1-2.5-5 ladder fails the same check: the test can tell coarse buckets', async () => {
  const coarse = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
  const errors = await worstErrorAcrossRange(coarse, 0.25);
  assert.ok(errors.some((e) => e.relativeError > BOUND));
});

test("recorded traffic through a real gateway: PromQL on its /metrics within 10% of the records' percentiles", async () => {
  // Jittery and batch-sensitive, so gaps and TTFTs spread over many buckets rather than sitting in one. 20 ms
  // between tokens: at a few ms, this process's busy event loop makes the in-process simulator's timers late and
  // it sends overdue tokens back to back (gaps of microseconds, below the lowest bucket) (measured: 80% of gaps).
  const sim = await startSimulator({
    timing: { ttftMs: 8, prefillMsPerToken: 0.05, itlMs: 20, jitter: 0.6, batchSlowdown: 0.05 },
  });
  const gateway = await startGateway({
    upstreams: [{ name: 'sim', baseUrl: `${sim.url}/v1`, keyless: true, default: true }],
    records: { gaps: true },
  });
  try {
    const model = sim.config.servedModelNames[0] ?? '';
    const random = new SeededRandom('recorded traffic');
    const count = 80;
    await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const response = await fetch(`${gateway.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model,
            messages: [{ role: 'user', content: 'word '.repeat(random.int(10, 400)) }],
            max_tokens: random.int(8, 40),
            stream: true,
          }),
        });
        await response.text();
        assert.equal(response.status, 200, `request ${i}`);
      }),
    );
    const records = await gateway.recordsAfter(count);
    const page = await (await fetch(`${gateway.url}/metrics`)).text();
    const seconds = (ms: readonly (number | null | undefined)[]): number[] =>
      ms.filter((v): v is number => typeof v === 'number').map((v) => v / 1000);
    const checks = [
      { family: 'tokenmeter_time_to_first_token_seconds', values: seconds(records.map((r) => r.ttftMs)) },
      { family: 'tokenmeter_time_per_output_token_seconds', values: seconds(records.map((r) => r.tpotMs)) },
      {
        family: 'tokenmeter_inter_token_gap_seconds',
        values: seconds(records.flatMap((r) => r.itlMs ?? [])),
      },
      { family: 'tokenmeter_request_duration_seconds', values: seconds(records.map((r) => r.e2eMs)) },
    ];
    for (const { family, values } of checks) {
      const buckets = bucketsOnPage(page, family);
      assert.equal(buckets.at(-1)?.count, values.length, `${family}: every record observed once`);
      // p99 needs a tail: with 80 requests it rests on the top one or two values, where one outlier moves the
      // exact figure by more than a bucket; the gaps (thousands) have one, so their p99 is held to the bound.
      const quantiles = values.length >= 1000 ? [0.5, 0.99] : [0.5];
      for (const q of quantiles) {
        const exact = percentile(values, q * 100);
        const promql = histogramQuantile(q, buckets);
        assert.ok(
          Math.abs(promql / exact - 1) <= BOUND,
          `${family} p${q * 100}: PromQL ${promql} vs exact ${exact} over ${values.length} samples`,
        );
      }
    }
  } finally {
    await gateway.close();
    await sim.close();
  }
});

test('histogramQuantile returns the very float Prometheus returns (promtool test rules)', async (t) => {
  const promtool = requireTool(t, 'promtool');
  if (promtool === undefined) return;
  const random = new SeededRandom('promtool');
  const spread = (median: number, sigma: number, n: number): number[] =>
    Array.from({ length: n }, () => median * Math.exp(sigma * random.normal()));
  const cases = [
    { name: 'inside the ladder', values: spread(0.8, 0.4, 500) },
    { name: 'first bucket, interpolated from 0', values: spread(0.0007, 0.1, 50) },
    { name: 'tail past the last bound (+Inf)', values: [...spread(300, 0.2, 90), ...spread(3000, 0.1, 10)] },
  ];
  const quantiles = [0.5, 0.9, 0.99];
  const groups: string[] = [];
  for (const [i, c] of cases.entries()) {
    const buckets = await bucketed(FIRST_TOKEN_BUCKETS_S, c.values);
    const series = buckets.map((b) => {
      const le = b.le === Number.POSITIVE_INFINITY ? '+Inf' : String(b.le);
      return `      - series: 'h_bucket{case="${i}",le="${le}"}'\n        values: '0 ${b.count}'`;
    });
    const expectations = quantiles.map((q) => {
      const expected = histogramQuantile(q, buckets);
      return `      - expr: histogram_quantile(${q}, h_bucket{case="${i}"})\n        eval_time: 1m\n        exp_samples:\n          - labels: '{case="${i}"}'\n            value: ${expected}`;
    });
    groups.push(
      `  - interval: 1m\n    name: '${c.name}'\n    input_series:\n${series.join('\n')}\n    promql_expr_test:\n${expectations.join('\n')}`,
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'tokenmeter-quantile-'));
  try {
    const file = join(dir, 'quantile.test.yml');
    await writeFile(file, `rule_files: []\ntests:\n${groups.join('\n')}\n`);
    // promtool compares the values exactly (it prints exp 1.06E-01, got 1.0600000000000001E-01 when one bit
    // differs), so a pass means the same float64.
    const result = await runTool(promtool, ['test', 'rules', file]);
    assert.equal(result.code, 0, result.output);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** A histogram's cumulative buckets on a /metrics page (one label set: the test's one upstream and model). */
function bucketsOnPage(page: string, family: string): CumulativeBucket[] {
  const line = new RegExp(`^${family}_bucket\\{le="([^"]+)"[^}]*\\} (\\S+)$`, 'gm');
  return [...page.matchAll(line)].map((m) => ({
    le: m[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(m[1]),
    count: Number(m[2]),
  }));
}
