// compare on result files written by vLLM's own code (fixtures/vllm-009e6d4a/results and fixtures/vllm-0.8.5,
// READMEs there): intervals from vLLM's detailed arrays when they are all a file has, for TTFT, TPOT, ITL and
// E2E (0.8.5's files have no latencies: E2E is TTFT + the gaps, vLLM's own identity), a line saying which
// figures could not be tested (0.8.5 saves no start_times, so no throughput interval), and the failed count
// that 0.8.5 does not save derived from its errors array, or from num_prompts - completed, and said so.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Comparison } from '../../loadgen/compare/comparison.js';
import { runCli } from '../helpers/run-cli.js';

const fixture = (path: string): string =>
  fileURLToPath(new URL(`../../../test/loadgen/fixtures/${path}`, import.meta.url));
const CURRENT = [
  fixture('vllm-009e6d4a/results/compare-a.json'),
  fixture('vllm-009e6d4a/results/compare-b.json'),
];
const V085 = [fixture('vllm-0.8.5/v0.8.5-compare-a.json'), fixture('vllm-0.8.5/v0.8.5-compare-b.json')];
const V085_SUMMARY_ONLY = [
  fixture('vllm-0.8.5/v0.8.5-compare-a-summary-only.json'),
  fixture('vllm-0.8.5/v0.8.5-compare-b-summary-only.json'),
];
const LATENCY_ROWS = ['mean', 'median'].flatMap((stat) =>
  ['ttft', 'tpot', 'itl', 'e2el'].map((metric) => `${stat}_${metric}_ms`),
);

async function compare(files: readonly string[]): Promise<{ table: string; comparison: Comparison }> {
  const table = await runCli(['compare', ...files]);
  assert.equal(table.code, 0, table.stderr);
  const json = await runCli(['compare', '--json', ...files]);
  assert.equal(json.code, 0, json.stderr);
  return { table: table.stdout, comparison: JSON.parse(json.stdout) as Comparison };
}

function intervalsOf(comparison: Comparison, key: string): boolean {
  const row = comparison.rows.find((r) => r.key === key);
  assert.ok(row !== undefined, `no row ${key}`);
  return row.intervals.every((interval) => interval !== null);
}

test("two of vLLM's current --save-detailed files: intervals for TTFT, TPOT, ITL, E2E and the throughputs", async () => {
  const { table, comparison } = await compare(CURRENT);
  for (const key of [...LATENCY_ROWS, 'request_throughput', 'output_throughput'])
    assert.ok(intervalsOf(comparison, key), `${key} has no interval:\n${table}`);
  assert.match(table, /40 records \(detailed arrays\)/);
  // The simulators differ by 15 ms of TTFT and 3 ms per token: the difference interval excludes 0.
  const ttft = comparison.rows.find((r) => r.key === 'mean_ttft_ms');
  assert.ok(ttft?.deltas[1] !== null && (ttft?.values[1] as number) > (ttft?.values[0] as number));
  assert.match(
    table,
    /\nMean E2EL \(ms\)\s+[\d.]+\s+[\d.]+\s+\+[\d.]+ \(\+[\d.]+%\)\s+\[\+[\d.]+, \+[\d.]+\]/,
  );
});

test("two of vLLM 0.8.5's --save-detailed files: latency intervals, the untested throughputs said, failed derived", async () => {
  const { table, comparison } = await compare(V085);
  for (const key of LATENCY_ROWS)
    assert.ok(intervalsOf(comparison, key), `${key} has no interval:\n${table}`);
  assert.match(table, /no latencies \(E2EL = TTFT \+ the gaps\), no start_times \(throughputs untested\)/);
  assert.match(table, /\nRequest throughput \(req\/s\).*no interval: no start times saved/);
  const failed = comparison.rows.find((r) => r.key === 'failed');
  assert.deepEqual(failed?.values, [0, 0]);
  assert.match(
    table,
    /A: the file saves no failed count \(vLLM 0\.8\.5 and earlier\): Failed requests is derived from its errors array/,
  );
});

test('vLLM 0.8.5 files without --save-detailed: no intervals, said why; Failed requests from num_prompts - completed', async () => {
  const { table, comparison } = await compare(V085_SUMMARY_ONLY);
  assert.ok(!intervalsOf(comparison, 'mean_ttft_ms'));
  assert.match(table, /no records file and no detailed arrays/);
  const failed = comparison.rows.find((r) => r.key === 'failed');
  assert.deepEqual(failed?.values, [0, 0]);
  assert.match(table, /derived from num_prompts - completed/);
});
