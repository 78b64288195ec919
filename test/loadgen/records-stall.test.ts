// The load generator's records file through the one records writer: a file that stalls (a FIFO nobody reads)
// neither stops the run nor hides a record; every record is written whole or counted lost in the result JSON
// (`tokenmeter.records_lost`), and the report says so. A pipe keeps a fragment of the line it was taking when
// the run gave up on it (a pipe cannot be cut back): that record is counted lost, and the fragment is last. (How much a stalled file delays the chunk stamps, against
// a run without records: bench/records-stall.ts.)
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { withDeadline } from '../helpers/deadline.js';
import { drainPipe } from '../helpers/records-files.js';
import { CLI_PATH } from '../helpers/run-cli.js';
import { bench, cleanEnv, scratchDir } from './helpers/bench-cli.js';
import { exactTiming } from './helpers/bench-fixtures.js';

let sim: RunningSimulator;
const PROMPTS = 200;

before(async () => {
  sim = await startSimulator({ seed: 9, timing: exactTiming(2, 1) });
});
after(() => sim.close());

interface Saved {
  completed: number;
  tokenmeter: { records_lost?: number; records_lost_by_reason?: Record<string, number> };
}

function benchArgs(dir: string, records: string): string[] {
  return [
    '--base-url',
    sim.url,
    '--num-prompts',
    String(PROMPTS),
    '--request-rate',
    'inf',
    '--max-concurrency',
    '32',
    '--disable-tqdm',
    '--save-result',
    '--result-dir',
    dir,
    '--result-filename',
    'run.json',
    '--records-file',
    records,
  ];
}

test('a records FIFO nobody reads: the run ends, every record is in the pipe whole or counted lost', async (t) => {
  if (process.platform === 'win32') {
    t.skip('needs mkfifo');
    return;
  }
  const dir = scratchDir();
  const fifo = join(dir, 'records.fifo');
  execFileSync('mkfifo', [fifo]);
  // Held open, never read during the run: the pipe fills (64 KiB) and stays full. Read once the run is over.
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  t.after(() => closeSync(reader));
  const began = performance.now();
  const run = await bench(benchArgs(dir, fifo), cleanEnv());
  const tookMs = performance.now() - began;
  assert.equal(run.code, 0, run.stderr);
  const saved = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as Saved;
  assert.equal(saved.completed, PROMPTS, 'the stall changed no figure of the run');
  const lost = saved.tokenmeter.records_lost ?? -1;
  assert.ok(lost > 0, `the stalled pipe lost records (${lost})`);
  assert.deepEqual(saved.tokenmeter.records_lost_by_reason, { write_error: lost });
  // A pipe cannot be cut back: the line the pipe was taking when the run gave up stays as a fragment with no
  // newline at the very end (counted lost; readers skip a torn last line). Every line before it is whole.
  const lines = drainPipe(reader).split('\n').slice(0, -1);
  const ids = lines.map((line) => (JSON.parse(line) as { index: number }).index);
  assert.equal(new Set(ids).size, ids.length, 'no record twice');
  assert.equal(ids.length + lost, PROMPTS, 'each record written whole or counted lost');
  assert.match(run.stdout, new RegExp(`Records lost: ${lost} of ${PROMPTS} were not written`));
  assert.ok(tookMs < 30_000, `the run ended (${tookMs.toFixed(0)} ms)`);
});

test('a regular records file: every record written, records_lost 0 and no report line', async () => {
  const dir = scratchDir();
  const records = join(dir, 'run.records.jsonl');
  const run = await bench(benchArgs(dir, records), cleanEnv());
  assert.equal(run.code, 0, run.stderr);
  const saved = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as Saved;
  assert.equal(saved.tokenmeter.records_lost, 0);
  assert.equal(saved.tokenmeter.records_lost_by_reason, undefined);
  const text = readFileSync(records, 'utf8');
  assert.ok(text.endsWith('\n'));
  assert.equal(text.split('\n').filter((line) => line !== '').length, PROMPTS);
  assert.doesNotMatch(run.stdout, /Records lost/);
});

test('a records write that never returns (every threadpool thread parked, as on a hung mount): the run reports, then ends by SIGTERM', async (t) => {
  if (process.platform === 'win32') {
    t.skip('needs mkfifo');
    return;
  }
  const dir = scratchDir();
  const fifo = join(dir, 'park.fifo');
  execFileSync('mkfifo', [fifo]);
  const fixture = pathToFileURL(fileURLToPath(new URL('../helpers/park-threadpool.js', import.meta.url)));
  const prompts = 40;
  const child = spawn(
    process.execPath,
    [
      CLI_PATH,
      'bench',
      '--base-url',
      sim.url,
      '--num-prompts',
      String(prompts),
      '--request-rate',
      '20',
      '--records-file',
      join(dir, 'run.records.jsonl'),
    ],
    {
      env: {
        ...cleanEnv(),
        NODE_OPTIONS: `--import="${fixture}"`,
        UV_THREADPOOL_SIZE: '2',
        TOKENMETER_TEST_PARK_FIFO: fifo,
      },
    },
  );
  t.after(() => child.kill('SIGKILL'));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    // Parked at the first progress line: some records are written, most are still to come.
    if (/^progress: /m.test(stderr) && !stderr.includes('parked')) child.kill('SIGUSR2');
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once('exit', (_code, signal) => resolve(signal)),
  );
  // The run, then RECORDS_GIVE_UP_MS for the records file, then the end.
  const signal = await withDeadline(
    exited,
    () => `bench to end with its records write parked: ${stderr.slice(-800)}`,
    30_000,
  );
  assert.equal(signal, 'SIGTERM', stderr);
  assert.match(stdout, /Serving Benchmark Result/);
  const lost = Number(/Records lost: (\d+) of 40 were not written/.exec(stdout)?.[1] ?? -1);
  assert.ok(lost > 0, stdout.slice(-600));
  assert.match(
    stderr,
    new RegExp(
      `a file operation on it never returned \\(a hung mount\\?\\); ${lost} records lost; ending without waiting for it \\(by SIGTERM, status 143, instead of 0\\)`,
    ),
  );
});
