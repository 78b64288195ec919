// `tokenmeter bench --workers 2` through the real CLI against the simulator: two worker processes, one report
// whose request count is --num-prompts, one records file holding every request once, and the workers' lines.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseRecordsJsonl } from '../../loadgen/bench/records-file.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { bench, cleanEnv } from '../loadgen/helpers/bench-cli.js';
import { exactTiming } from '../loadgen/helpers/bench-fixtures.js';

const PROMPTS = 24;

let sim: RunningSimulator;
before(async () => {
  sim = await startSimulator({ seed: 5, timing: exactTiming(10, 2) });
});
after(() => sim.close());

test('--workers 2 sends the run from two processes and reports it once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tokenmeter-workers-test-'));
  const cli = await bench(
    [
      '--base-url',
      sim.url,
      '--num-prompts',
      String(PROMPTS),
      '--request-rate',
      '40',
      '--sharegpt-output-len',
      '4',
      '--disable-tqdm',
      '--workers',
      '2',
      '--save-result',
      '--result-dir',
      dir,
      '--result-filename',
      'run.json',
    ],
    cleanEnv(),
  );
  assert.equal(cli.code, 0, cli.stderr);
  assert.equal(cli.stdout.match(/Serving Benchmark Result/g)?.length, 1, cli.stdout);
  assert.match(cli.stdout, new RegExp(`^Successful requests: +${PROMPTS} `, 'm'));
  assert.match(cli.stdout, /^0\/2 +\S+ +12 /m);
  assert.match(cli.stdout, /^1\/2 +\S+ +12 /m);
  const result = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as Record<string, number>;
  assert.equal((result['completed'] ?? 0) + (result['failed'] ?? 0), PROMPTS);
  const records = parseRecordsJsonl(readFileSync(join(dir, 'run.records.jsonl'), 'utf8'));
  assert.deepEqual(
    records.map((r) => r.index).sort((a, b) => a - b),
    Array.from({ length: PROMPTS }, (_, i) => i),
  );
  // The workers' scratch files are gone; only the merged run is left.
  assert.equal(existsSync(join(dir, 'shard-0.json')), false);
});
