// `tokenmeter merge` of shards that read the server's /metrics: two `bench --shard I/2` processes of the real CLI
// against one simulator, each saving its own series, then merge: every shard's samples in one series in time order
// (none lost, none made up), the scrape's counts added, the TTFT histogram from the earliest baseline to the latest
// last sample, the summary recomputed from the merged series, and the report's server section printed.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { type CliResult, runCli } from '../helpers/run-cli.js';
import { bench, cleanEnv } from '../loadgen/helpers/bench-cli.js';
import { exactTiming } from '../loadgen/helpers/bench-fixtures.js';
import { seededRunFlags } from './shard-run.js';

interface Series {
  t_s: number[];
  num_requests_running: (number | null)[];
  num_requests_waiting: (number | null)[];
}
interface Histogram {
  first: number[];
  last: number[];
}
interface ServerMetrics {
  available: boolean;
  summary: { samples: number; max_requests_running: number | null };
  scrape: { failed: number; skipped: number; read_cpu_ms: number[] };
  series: Series;
  histograms: { time_to_first_token_seconds: Histogram };
}

let sim: RunningSimulator;
let root: string;
let shards: ServerMetrics[];
let merged: ServerMetrics;
let mergeCli: CliResult;

const serverMetricsOf = (path: string): ServerMetrics =>
  (JSON.parse(readFileSync(path, 'utf8')) as { tokenmeter: { server_metrics: ServerMetrics } }).tokenmeter
    .server_metrics;

before(async () => {
  // Two seats, so requests wait and the running and waiting gauges move through the run.
  sim = await startSimulator({ seed: 6, timing: { ...exactTiming(10, 2), maxNumSeqs: 2 } });
  root = mkdtempSync(join(tmpdir(), 'tokenmeter-merge-server-'));
  const shardsDir = join(root, 'shards');
  // Started at once, each when it is ready: their t = 0 differ by the start-up, which the merge keeps.
  const runs = await Promise.all(
    [0, 1].map((i) =>
      bench(
        [...seededRunFlags(sim.url, shardsDir), '--shard', `${i}/2`, '--server-metrics-interval', '0.1'],
        cleanEnv(),
      ),
    ),
  );
  for (const run of runs) assert.equal(run.code, 0, run.stderr);
  const files = readdirSync(shardsDir)
    .filter((f) => f.endsWith('.json'))
    .sort((a, b) => a.localeCompare(b));
  assert.equal(files.length, 2, files.join(', '));
  shards = files.map((f) => serverMetricsOf(join(shardsDir, f)));
  const out = join(root, 'merged');
  mergeCli = await runCli(
    ['merge', shardsDir, '--save-result', '--result-dir', out, '--result-filename', 'merged.json'],
    cleanEnv(),
  );
  assert.equal(mergeCli.code, 0, mergeCli.stderr);
  merged = serverMetricsOf(join(out, 'merged.json'));
});
after(() => sim.close());

test("the merged series holds every shard's samples, in time order", () => {
  for (const shard of shards)
    assert.ok(shard.available && shard.series.t_s.length >= 3, JSON.stringify(shard));
  assert.equal(merged.available, true);
  const times = merged.series.t_s;
  assert.deepEqual(
    times,
    [...times].sort((a, b) => a - b),
    'in time order',
  );
  // Each sample as (time, running, waiting): the merged run's are exactly the shards' together.
  const samples = (s: Series): string[] =>
    s.t_s.map((t, i) => `${t}|${s.num_requests_running[i]}|${s.num_requests_waiting[i]}`).sort();
  assert.deepEqual(samples(merged.series), shards.flatMap((s) => samples(s.series)).sort());
  assert.equal(merged.summary.samples, times.length);
  assert.equal(
    merged.scrape.read_cpu_ms.length,
    shards.reduce((n, s) => n + s.scrape.read_cpu_ms.length, 0),
  );
  assert.equal(
    merged.scrape.failed,
    shards.reduce((n, s) => n + s.scrape.failed, 0),
  );
});

test('the summary is recomputed from the merged series, and the histogram spans the whole run', () => {
  const running = merged.series.num_requests_running.filter((v): v is number => v !== null);
  assert.equal(merged.summary.max_requests_running, Math.max(...running));
  // The same server's counters: the increase runs from the earliest baseline to the latest last sample, which
  // are the smallest and largest counts whatever each shard's own t = 0 (these shards did not share one).
  const count = (buckets: number[]): number => buckets.at(-1) ?? 0;
  const ttft = (s: ServerMetrics): Histogram => s.histograms.time_to_first_token_seconds;
  const { first, last } = ttft(merged);
  assert.equal(count(first), Math.min(...shards.map((s) => count(ttft(s).first))));
  assert.equal(count(last), Math.max(...shards.map((s) => count(ttft(s).last))));
  // Every request of both shards reached the server between the two: its TTFT count grew by all 30.
  assert.equal(count(last) - count(first), 30);
  assert.match(mergeCli.stdout, / Server metrics \(vllm[^)]*\/metrics\) /);
});
