// Ctrl-C in the middle of a run: `tokenmeter bench` (a child process) gets SIGINT once some requests have
// finished and others are in flight. It must exit 130, print the summary of what ran, and leave a records file
// in which every line is valid JSON: the finished requests as they ended, the in-flight ones as `client_abort`.
// The result JSON is marked (`tokenmeter.interrupted`: when, how many cancelled), the cancelled requests are no
// failures of the server, the report says the run was cut short, and compare and merge say so when they read it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { CLI_PATH, runCli } from '../helpers/run-cli.js';
import { cleanEnv, scratchDir } from './helpers/bench-cli.js';
import { exactTiming } from './helpers/bench-fixtures.js';

let sim: RunningSimulator;

before(async () => {
  // 5 ms per token and ~200-token answers: each request streams for about a second.
  sim = await startSimulator({ seed: 4, timing: exactTiming(10, 5) });
});
after(() => sim.close());

test('SIGINT midway leaves a valid partial JSONL and a summary of what ran', async () => {
  const dir = scratchDir();
  const records = join(dir, 'run.records.jsonl');
  const child = spawn(
    process.execPath,
    [
      CLI_PATH,
      'bench',
      '--base-url',
      sim.url,
      '--num-prompts',
      '40',
      '--request-rate',
      '20',
      '--records-file',
      records,
      '--save-result',
      '--result-dir',
      dir,
      '--result-filename',
      'cut.json',
    ],
    { env: cleanEnv() },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Interrupt at the first progress line: 10% of the requests have a record, many more are in flight.
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (/^progress: /m.test(stderr)) resolve();
    });
    child.on('exit', () => reject(new Error(`exited before any progress: ${stderr}`)));
  });
  child.kill('SIGINT');
  const code = await exited;
  assert.equal(code, 130, stderr);
  assert.match(stdout, /Serving Benchmark Result/);
  assert.match(
    stdout,
    /Interrupted \(cut short at \S+\): \d+ of 40 requests ran to their end; \d+ in flight were cancelled and \d+ never sent, none counted as failed/,
  );

  const lines = readFileSync(records, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const parsed = lines.map((line) => JSON.parse(line) as { index: number; outcome: string });
  const ok = parsed.filter((r) => r.outcome === 'ok').length;
  const aborted = parsed.filter((r) => r.outcome === 'client_abort').length;
  assert.ok(ok >= 4, `finished requests kept (${ok})`);
  assert.ok(aborted >= 1, `in-flight requests recorded as aborted (${aborted})`);
  assert.ok(parsed.length < 40, 'the rest were never sent');
  assert.equal(new Set(parsed.map((r) => r.index)).size, parsed.length, 'one record per request');

  const saved = JSON.parse(readFileSync(join(dir, 'cut.json'), 'utf8')) as {
    completed: number;
    failed: number;
    num_prompts: number;
    tokenmeter: {
      interrupted?: { at: string; cancelled: number; cancelled_in_flight: number; not_sent: number };
    };
  };
  const mark = saved.tokenmeter.interrupted;
  assert.ok(mark !== undefined, 'the result JSON is marked');
  assert.ok(Math.abs(Date.parse(mark.at) - Date.now()) < 60_000, `a real time: ${mark.at}`);
  assert.equal(mark.cancelled_in_flight, aborted);
  assert.equal(mark.not_sent, 40 - parsed.length);
  assert.equal(mark.cancelled, mark.cancelled_in_flight + mark.not_sent);
  assert.equal(saved.completed, ok);
  assert.equal(saved.failed, parsed.length - ok - aborted, 'the cancelled requests are not failures');
  assert.equal(saved.num_prompts, 40);

  // compare and merge say so when they read it.
  const compared = await runCli(['compare', join(dir, 'cut.json'), join(dir, 'cut.json')], cleanEnv());
  assert.equal(compared.code, 0, compared.stderr);
  assert.match(compared.stdout, /A: interrupted at \S+, \d+ of its requests cancelled/);
  const merged = await runCli(['merge', join(dir, 'cut.json')], cleanEnv());
  assert.match(merged.stdout, /interrupted at \S+, \d+ of its requests cancelled/);

  // And so does its HTML report, above the figures.
  const page = join(dir, 'cut.html');
  const reported = await runCli(['report', join(dir, 'cut.json'), '-o', page], cleanEnv());
  assert.equal(reported.code, 0, reported.stderr);
  const html = readFileSync(page, 'utf8');
  assert.match(
    html,
    new RegExp(
      `<p class="cut-short">This run was cut short: interrupted at ${mark.at.replaceAll('.', '\\.')}, ${mark.cancelled} of its requests cancelled: it describes only the part that ran\\.</p>`,
    ),
  );
  assert.ok(html.indexOf('cut-short">') < html.indexOf('Key figures'), 'said before the figures');
});
