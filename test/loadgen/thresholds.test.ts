// Thresholds and the default success floor, through the real `tokenmeter bench` against simulators whose TTFT and
// failure rate are set: each threshold form passes and fails with its documented exit status (0, 99), a run under
// 90% successes fails (1) unless --no-success-floor, thresholds from the config file count the same, and the result
// JSON lists every check while keeping vLLM's keys as they were.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseThreshold } from '../../loadgen/thresholds/threshold.js';
import { thresholdMetricNames } from '../../loadgen/thresholds/threshold-metrics.js';
import { EXIT_OK, EXIT_RUN_FAILED, EXIT_THRESHOLD_FAILED } from '../../src/cli/command.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import type { CliResult } from '../helpers/run-cli.js';
import { bench, cleanEnv, scratchDir, writeConfig } from './helpers/bench-cli.js';
import { exactTiming } from './helpers/bench-fixtures.js';

/** The simulator's TTFT: no measured TTFT can be below it, so "< 5ms" must fail and "< 2s" must pass. */
const SIM_TTFT_MS = 20;

let healthy: RunningSimulator;
let faulty: RunningSimulator;

before(async () => {
  healthy = await startSimulator({ seed: 1, timing: exactTiming(SIM_TTFT_MS, 2) });
  // Half the requests answered 500: far below the 90% floor whatever the seed draws for 12 requests.
  faulty = await startSimulator({ seed: 1, timing: exactTiming(SIM_TTFT_MS, 2), faults: { errorRate: 0.5 } });
});
after(async () => {
  await healthy.close();
  await faulty.close();
});

interface ThresholdEntry {
  threshold: string;
  metric: string;
  unit: string;
  value: number | null;
  passed: boolean;
  source: string;
}

interface SavedRun {
  readonly cli: CliResult;
  readonly json: Record<string, unknown> & { tokenmeter: Record<string, unknown> };
  readonly checks: ThresholdEntry[];
}

async function run(url: string, extra: string[], dir = scratchDir()): Promise<SavedRun> {
  const cli = await bench(
    [
      '--base-url',
      url,
      '--num-prompts',
      '12',
      '--sharegpt-output-len',
      '5',
      '--disable-tqdm',
      '--no-records',
      '--save-result',
      '--result-dir',
      dir,
      '--result-filename',
      'result.json',
      ...extra,
    ],
    cleanEnv(),
  );
  const json = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as SavedRun['json'];
  const checks = (json.tokenmeter['thresholds'] ?? []) as ThresholdEntry[];
  return { cli, json, checks };
}

const FORMS = [
  { form: 'a percentile with a unit', pass: 'ttft_p99 < 2s', fail: 'ttft_p99 < 5ms', key: 'p99_ttft_ms' },
  { form: 'a mean in bare ms', pass: 'ttft_mean <= 2000', fail: 'ttft_mean < 5', key: 'mean_ttft_ms' },
  // e2el and p50 are not in the reported metrics and percentiles: the threshold has them computed.
  { form: 'an unreported percentile', pass: 'e2el_p50 < 2s', fail: 'e2el_p50 < 5ms', key: undefined },
  { form: 'a share', pass: 'success_rate >= 0.99', fail: 'success_rate < 50%', key: undefined },
  {
    form: 'a throughput',
    pass: 'output_throughput >= 1',
    fail: 'output_throughput >= 100000000',
    key: 'output_throughput',
  },
] as const;

for (const { form, pass, fail, key } of FORMS) {
  test(`a threshold on ${form} passes (exit 0) and fails (exit 99), listed in the report and the result JSON`, async () => {
    const [kept, crossed] = await Promise.all([
      run(healthy.url, ['--threshold', pass]),
      run(healthy.url, ['--threshold', fail]),
    ]);
    assert.equal(kept.cli.code, EXIT_OK, kept.cli.stderr);
    assert.equal(crossed.cli.code, EXIT_THRESHOLD_FAILED, crossed.cli.stderr);
    assert.match(kept.cli.stdout, new RegExp(`^pass  ${regexpLiteral(pass)}: `, 'm'));
    assert.match(crossed.cli.stdout, new RegExp(`^FAIL  ${regexpLiteral(fail)}: `, 'm'));
    const [keptCheck] = kept.checks;
    const [crossedCheck] = crossed.checks;
    assert.equal(keptCheck?.threshold, pass);
    assert.equal(keptCheck?.passed, true);
    assert.equal(keptCheck?.source, 'threshold');
    assert.equal(crossedCheck?.threshold, fail);
    assert.equal(crossedCheck?.passed, false);
    // The value checked is the one the result file reports under vLLM's key.
    if (key !== undefined) assert.equal(keptCheck?.value, kept.json[key]);
    // The success floor is checked too, and passed: it is listed, and is not why the run exited 99.
    assert.deepEqual(
      crossed.checks.map((c) => [c.source, c.passed]),
      [
        ['threshold', false],
        ['success_floor', true],
      ],
    );
  });
}

test('under 90% successes the run fails (exit 1) by default; --no-success-floor turns the rule off', async () => {
  const [floored, allowed] = await Promise.all([
    run(faulty.url, []),
    run(faulty.url, ['--no-success-floor']),
  ]);
  const rate = floored.json.tokenmeter['success_rate'] as number;
  assert.ok(rate > 0 && rate < 0.9, `the faults leave some successes, under 90% (${rate})`);
  assert.equal(floored.cli.code, EXIT_RUN_FAILED, floored.cli.stderr);
  assert.match(floored.cli.stdout, /^FAIL {2}success_rate >= 0\.9: .*default success floor: the run failed/m);
  assert.deepEqual(floored.checks, [
    {
      threshold: 'success_rate >= 0.9',
      metric: 'success_rate',
      unit: 'share',
      value: rate,
      passed: false,
      source: 'success_floor',
    },
  ]);
  assert.equal(allowed.cli.code, EXIT_OK, allowed.cli.stderr);
  assert.doesNotMatch(allowed.cli.stdout, /Thresholds/);
  assert.equal(allowed.json.tokenmeter['thresholds'], undefined);
});

test('a run under the floor is a failed run (1) even when a threshold is crossed too', async () => {
  const both = await run(faulty.url, ['--threshold', 'ttft_p99 < 5ms']);
  assert.equal(both.cli.code, EXIT_RUN_FAILED, both.cli.stderr);
  assert.deepEqual(
    both.checks.map((c) => c.passed),
    [false, false],
  );
});

test('thresholds from the config file gate the run like the flag; vLLM keys stay as they were', async () => {
  const dir = scratchDir();
  const config = writeConfig(dir, { threshold: ['ttft_p99 < 5ms', 'output_throughput >= 1'] });
  const [gated, plain] = await Promise.all([
    run(healthy.url, ['--config', config], dir),
    run(healthy.url, []),
  ]);
  assert.equal(gated.cli.code, EXIT_THRESHOLD_FAILED, gated.cli.stderr);
  assert.deepEqual(
    gated.checks.map((c) => [c.threshold, c.passed]),
    [
      ['ttft_p99 < 5ms', false],
      ['output_throughput >= 1', true],
      ['success_rate >= 0.9', true],
    ],
  );
  // A plain run that passes its floor prints no Thresholds section, but its result lists the floor.
  assert.equal(plain.cli.code, EXIT_OK, plain.cli.stderr);
  assert.doesNotMatch(plain.cli.stdout, /Thresholds/);
  assert.deepEqual(Object.keys(gated.json), Object.keys(plain.json), 'same vLLM keys, same order');
  assert.deepEqual(Object.keys(gated.json.tokenmeter), Object.keys(plain.json.tokenmeter));
});

test('every metric name a threshold can use reads a value from the run', async () => {
  const names = thresholdMetricNames();
  const all = await run(healthy.url, [
    '--goodput',
    'ttft:1000',
    // per_token_itl is in the result only when the chunks carried a running usage.
    '--per-chunk-usage',
    ...names.flatMap((name) => ['--threshold', `${name} >= 0`]),
  ]);
  assert.equal(all.checks.length, names.length + 1, all.cli.stderr);
  const missing = all.checks.filter((c) => c.value === null).map((c) => c.metric);
  assert.deepEqual(missing, [], 'names whose value the result JSON does not have');
});

function regexpLiteral(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

test("a percentile written with a colon ('ttft:p99 <= 2s', the issue's and vLLM's --goodput spelling) is ttft_p99", () => {
  const colon = parseThreshold('ttft:p99 <= 2s');
  assert.equal(colon.metric.name, 'ttft_p99');
  assert.equal(colon.limit, 2000);
  assert.equal(colon.text, 'ttft_p99 <= 2s');
  assert.throws(() => parseThreshold('ttft:p99x <= 2s'), /unknown metric 'ttft:p99x'/);
});
