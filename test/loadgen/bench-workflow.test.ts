// The bench workflow without the CLI (loadgen/bench/bench-workflow.ts): from settings to printed report and saved
// result file against the simulator, --estimate that sends nothing, and --workers refused before any folder is made.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { benchWorkflow } from '../../loadgen/bench/bench-workflow.js';
import type { BenchSettings } from '../../loadgen/bench/settings.js';
import type { BenchValues } from '../../src/cli/bench-options.js';
import { benchSettingsFrom } from '../../src/cli/bench-settings.js';
import { UsageError } from '../../src/shared/user-facing-error.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { exactTiming } from './helpers/bench-fixtures.js';

let sim: RunningSimulator;
/** Answers 500 to everything and counts: a workflow that sends nothing leaves it at 0. */
let counter: Server;
let counterUrl = '';
let counterHits = 0;

before(async () => {
  sim = await startSimulator({ seed: 3, timing: exactTiming(5, 1) });
  counter = createServer((req, res) => {
    counterHits++;
    req.resume();
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
  const address = counter.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  counterUrl = `http://127.0.0.1:${address.port}`;
});
after(async () => {
  await sim.close();
  await new Promise<void>((resolve) => counter.close(() => resolve()));
});

function settingsFor(options: Partial<BenchValues>): BenchSettings {
  return benchSettingsFrom(
    {
      'dataset-name': 'random',
      'random-input-len': 16,
      'random-output-len': 4,
      'num-prompts': 6,
      'request-rate': 100,
      'disable-tqdm': true,
      ...options,
    },
    [],
    {},
    'workflow',
  );
}

function capture(): {
  lines: string[];
  printed: string[];
  say: (l: string) => void;
  print: (t: string) => void;
} {
  const lines: string[] = [];
  const printed: string[] = [];
  return { lines, printed, say: (l) => void lines.push(l), print: (t) => void printed.push(t) };
}

test('a run from settings prints its report and saves its result file, with no CLI', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tokenmeter-workflow-'));
  const out = capture();
  const ran = await benchWorkflow({
    settings: settingsFor({
      'base-url': sim.url,
      'save-result': true,
      'result-dir': dir,
      'result-filename': 'run.json',
    }),
    say: out.say,
    print: out.print,
    progressStream: { write: () => true, isTTY: false },
  });
  assert.equal(ran.kind, 'ran');
  const report = out.printed.join('');
  assert.match(report, /^Successful requests: +6 /m, report);
  const saved = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as Record<string, unknown>;
  assert.equal(saved['completed'], 6);
  assert.ok(
    out.lines.some((l) => l.startsWith('records: ')),
    out.lines.join('\n'),
  );
});

test('--estimate prints the estimate and sends nothing', async () => {
  const out = capture();
  const before = counterHits;
  const ran = await benchWorkflow({
    settings: settingsFor({ 'base-url': counterUrl, estimate: true, 'price-input': 1, 'price-output': 2 }),
    say: out.say,
    print: out.print,
    progressStream: { write: () => true, isTTY: false },
  });
  assert.equal(ran.kind, 'estimated');
  assert.equal(counterHits, before, 'no request reached the server');
  assert.match(out.printed.join(''), /USD/);
});

test('--workers with a closed loop is refused before the result folder is made', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'tokenmeter-workflow-')), 'not-made');
  await assert.rejects(
    benchWorkflow({
      settings: settingsFor({
        'base-url': counterUrl,
        engine: 'closed-loop',
        'max-concurrency': 2,
        'save-result': true,
        'result-dir': dir,
      }),
      workers: {
        count: 2,
        flags: { values: {}, positionals: [] },
        process: { cliPath: '', env: {} },
      },
      say: () => {},
      print: () => {},
      progressStream: { write: () => true, isTTY: false },
    }),
    (error: unknown) => error instanceof UsageError && /open-loop engine/.test(error.message),
  );
  assert.equal(existsSync(dir), false);
});
