// The sweep workflow without the CLI (loadgen/sweep/sweep-workflow.ts): from settings and a list of rates to the
// printed table and the saved summary against the simulator, and a concurrency sweep's refused settings caught
// before any folder is made.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { BenchSettings } from '../../loadgen/bench/settings.js';
import { sweepWorkflow } from '../../loadgen/sweep/sweep-workflow.js';
import type { BenchValues } from '../../src/cli/bench-options.js';
import { benchSettingsFrom } from '../../src/cli/bench-settings.js';
import { UsageError } from '../../src/shared/user-facing-error.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { exactTiming } from './helpers/bench-fixtures.js';

let sim: RunningSimulator;

before(async () => {
  sim = await startSimulator({ seed: 4, timing: exactTiming(5, 1) });
});
after(async () => {
  await sim.close();
});

function settingsFor(options: Partial<BenchValues>): BenchSettings {
  return benchSettingsFrom(
    {
      'base-url': sim.url,
      'dataset-name': 'random',
      'random-input-len': 16,
      'random-output-len': 4,
      'num-prompts': 20,
      'disable-tqdm': true,
      ...options,
    },
    [],
    {},
    'sweep',
  );
}

const quiet = { write: () => true, isTTY: false };

test('a sweep from settings prints its table and knee and saves its summary, with no CLI', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tokenmeter-sweep-workflow-'));
  const lines: string[] = [];
  const printed: string[] = [];
  const outcome = await sweepWorkflow({
    settings: settingsFor({ 'result-dir': dir }),
    plan: { rates: [20, 40], steps: 5, levelSeconds: 0.5 },
    say: (l) => void lines.push(l),
    print: (t) => void printed.push(t),
    progressStream: quiet,
  });
  assert.equal(outcome.levels.length, 2);
  assert.equal(outcome.interrupted, false);
  const report = printed.join('');
  assert.match(report, /^ *rate \(req\/s\) +requests/m, report);
  assert.match(report, /^ *20\.00 .*\n *40\.00 /m, report);
  const summary = JSON.parse(readFileSync(join(dir, 'sweep-summary.json'), 'utf8')) as {
    levels: Array<{ offered_rate: number; result_file: string }>;
  };
  assert.deepEqual(
    summary.levels.map((l) => l.offered_rate),
    [20, 40],
  );
  for (const level of summary.levels) assert.ok(existsSync(join(dir, level.result_file)), level.result_file);
  assert.ok(
    lines.some((l) => l === `summary: ${join(dir, 'sweep-summary.json')}`),
    lines.join('\n'),
  );
});

test('a concurrency sweep with --max-concurrency is refused before the result folder is made', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'tokenmeter-sweep-workflow-')), 'not-made');
  await assert.rejects(
    sweepWorkflow({
      settings: settingsFor({ 'result-dir': dir, 'max-concurrency': 4 }),
      plan: { rates: undefined, steps: 5, levelSeconds: 0.5, concurrencies: [1, 2] },
      say: () => {},
      print: () => {},
      progressStream: quiet,
    }),
    (error: unknown) => error instanceof UsageError && /sets its own --max-concurrency/.test(error.message),
  );
  assert.equal(existsSync(dir), false);
});
