// compare-runs: deltas, percentages and the better side of a hand-checked pair, and the text table's layout.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareRuns } from '../../loadgen/compare/compare-runs.js';
import type { Delta } from '../../loadgen/compare/comparison.js';
import { formatComparison } from '../../loadgen/compare/format-comparison.js';
import { type LoadedRun, loadRun } from '../../loadgen/compare/run-records.js';
import type { LoadedResult } from '../../loadgen/report/read-result-file.js';
import { failedRecord, okRecord, resultOf } from '../report/helpers/synthetic-run.js';

// Hand-checked pair. "before": 4 requests, TTFT 100/200/300/400 ms, each 3 gaps of 20 ms (4 tokens), over 2 s.
// "after": the same requests with TTFT 50/100/150/200 ms and gaps of 10 ms, over 1 s.
//   mean TTFT 250 -> 125: -125 ms (-50.0%), better.    request throughput 2 -> 4 req/s: +2 (+100.0%), better.
//   TPOT = 3 x gap / 3 = 20 -> 10 ms.                    output tok/s 16 / 2 s = 8 -> 16.
//   duration 2 -> 1 s has no better side.
const before = [100, 200, 300, 400].map((ttft, i) => okRecord(i, i * 100, ttft, [20, 20, 20]));
const after = [50, 100, 150, 200].map((ttft, i) => okRecord(i, i * 100, ttft, [10, 10, 10]));

function loaded(path: string, json: LoadedResult['json']): Promise<LoadedRun> {
  return loadRun({ path, json });
}

/** A delta without its interval fields (these runs are too small for intervals). */
function change(d: Delta | null | undefined): Pick<Delta, 'absolute' | 'percent' | 'verdict'> | null {
  return d ? { absolute: d.absolute, percent: d.percent, verdict: d.verdict } : null;
}

const pair = (): Promise<LoadedRun[]> =>
  Promise.all([
    loaded('runs/before.json', resultOf(before, { label: 'before', durationMs: 2000 })),
    loaded('runs/after.json', resultOf(after, { label: 'after', durationMs: 1000 })),
  ]);

test('deltas, percentages and the better side match the hand-checked pair', async () => {
  const comparison = compareRuns(await pair());
  const row = (key: string) => {
    const found = comparison.rows.find((r) => r.key === key);
    assert.ok(found, `row ${key}`);
    return found;
  };
  assert.deepEqual(row('mean_ttft_ms').values, [250, 125]);
  assert.deepEqual(change(row('mean_ttft_ms').deltas[1]), {
    absolute: -125,
    percent: -50,
    verdict: 'better',
  });
  // Four requests are too few for an interval: B's lower TTFT is not tested, so no run is named.
  assert.equal(row('mean_ttft_ms').decision, 'untested');
  assert.equal(row('mean_ttft_ms').best, null);
  assert.deepEqual(change(row('request_throughput').deltas[1]), {
    absolute: 2,
    percent: 100,
    verdict: 'better',
  });
  assert.deepEqual(row('mean_tpot_ms').values, [20, 10]);
  assert.deepEqual(row('output_throughput').values, [8, 16]);
  assert.deepEqual(change(row('duration').deltas[1]), { absolute: -1, percent: -50, verdict: null });
  assert.equal(row('duration').best, null);
  assert.deepEqual(change(row('completed').deltas[1]), { absolute: 0, percent: 0, verdict: 'same' });
  assert.equal(row('completed').best, null, 'a tie has no best run');
  assert.deepEqual(row('tokenmeter.ttfb.mean_ms').values, [245, 120]);
  assert.deepEqual(row('tokenmeter.success_rate').values, [100, 100]);
  assert.deepEqual(
    comparison.runs.map((r) => [r.letter, r.name, r.model]),
    [
      ['A', 'before', 'Qwen/Qwen2.5-7B-Instruct'],
      ['B', 'after', 'Qwen/Qwen2.5-7B-Instruct'],
    ],
  );
  assert.deepEqual(comparison.notes, []);
});

test('the text table right-aligns numbers and names the best run per row', async () => {
  const text = formatComparison(compareRuns(await pair()));
  const lines = text.split('\n');
  assert.equal(lines[0], 'Runs:');
  assert.equal(
    lines[1],
    '  A  before (baseline): runs/before.json [Qwen/Qwen2.5-7B-Instruct, openai-chat, 20250102-030405]',
  );
  const header = lines.find((l) => l.startsWith('Metric'));
  assert.match(header ?? '', /^Metric\s+A\s+B\s+B vs A\s+B-A 95% CI\s+best$/);
  // Four requests are too few for an interval: the figures are compared as they stand, and no run is named.
  const untested = '\\s+no interval: only 4 requests\\s+untested\\n';
  assert.match(
    text,
    new RegExp(`\\nMean TTFT \\(ms\\)\\s+250\\.00\\s+125\\.00\\s+-125\\.00 \\(-50\\.0%\\)${untested}`),
  );
  assert.match(
    text,
    new RegExp(
      `\\nRequest throughput \\(req\\/s\\)\\s+2\\.00\\s+4\\.00\\s+\\+2\\.00 \\(\\+100\\.0%\\)${untested}`,
    ),
  );
  assert.match(
    text,
    /\nSuccessful requests\s+4\s+4\s+0 \(0\.0%\)\s+no interval: only 4 requests\s+untested\n/,
  );
  assert.match(text, /\nBenchmark duration \(s\)\s+2\.00\s+1\.00\s+-1\.00 \(-50\.0%\)\n/);
});

test('three runs: each compared with A, the best picked among all, missing figures shown as -', async () => {
  const third = resultOf([...before.slice(0, 3), failedRecord(3, 300, 503, 'overloaded')], {
    label: 'hosted',
    modelId: 'gpt-4o-mini',
    requestRate: Number.POSITIVE_INFINITY,
    durationMs: 4000,
    percentileMetrics: ['ttft'],
  });
  const comparison = compareRuns([...(await pair()), await loaded('hosted.json', third)]);
  const ttft = comparison.rows.find((r) => r.key === 'median_ttft_ms');
  assert.deepEqual(ttft?.values, [250, 125, 200]);
  assert.equal(ttft?.best, null, 'untested: no run named');
  assert.equal(ttft?.deltas[2]?.verdict, 'better');
  const tpot = comparison.rows.find((r) => r.key === 'mean_tpot_ms');
  assert.deepEqual(tpot?.values, [20, 10, null]);
  assert.equal(tpot?.deltas[2], null);
  const e2el = comparison.rows.find((r) => r.key === 'mean_e2el_ms');
  assert.deepEqual(e2el?.values, [310, 155, null]); // TTFT + 3 gaps
  assert.equal(e2el?.decision, 'untested');
  assert.equal(e2el?.best, null);
  const failed = comparison.rows.find((r) => r.key === 'failed');
  assert.deepEqual(change(failed?.deltas[2]), { absolute: 1, percent: null, verdict: 'worse' });
  assert.deepEqual(comparison.notes, [
    'the runs differ in more than one way (model, request rate): a difference in the figures cannot be put ' +
      'down to any one of them',
    'models differ: A Qwen/Qwen2.5-7B-Instruct, B Qwen/Qwen2.5-7B-Instruct, C gpt-4o-mini',
    'request rates (req/s) differ: A 4, B 4, C inf: the runs did not offer the same load',
    'C: success rate 75.0% is below 90%: its latencies describe only the requests that got through',
  ]);
  assert.match(
    formatComparison(comparison),
    /\nMean TPOT \(ms\)\s+20\.00\s+10\.00\s+-10\.00 \(-50\.0%\)\s+no interval: only 4 requests\s+-\s+-\s+-\s+untested\n/,
  );
});

test('vLLM result files without our extras compare on the keys they have', async () => {
  const vllmOnly = (json: LoadedResult['json']): LoadedResult['json'] => {
    const { tokenmeter: _ours, ...rest } = json;
    return rest;
  };
  const [a, b] = await pair();
  const comparison = compareRuns([
    await loaded('a.json', vllmOnly(a?.json ?? {})),
    await loaded('b.json', vllmOnly(b?.json ?? {})),
  ]);
  assert.equal(
    comparison.rows.find((r) => r.key.startsWith('tokenmeter.ttfb')),
    undefined,
  );
  const success = comparison.rows.find((r) => r.key === 'tokenmeter.success_rate');
  assert.deepEqual(success?.values, [100, 100], 'success rate from completed / (completed + failed)');

  const mixed = compareRuns([
    await loaded('ours.json', a?.json ?? {}),
    await loaded('vllm.json', vllmOnly(b?.json ?? {})),
  ]);
  const ttfb = mixed.rows.find((r) => r.key === 'tokenmeter.ttfb.mean_ms');
  assert.deepEqual(ttfb?.values, [245, null]);
  assert.equal(ttfb?.best, null, 'a figure only one run has names no best run');
});
