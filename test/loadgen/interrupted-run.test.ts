// Ctrl-C in the middle of a run: `tokenmeter bench` (a child process) gets SIGINT once some requests have
// finished and others are in flight. It must exit 130, print the summary of what ran, and leave a records file
// in which every line is valid JSON: the finished requests as they ended, the in-flight ones as `client_abort`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { CLI_PATH } from '../helpers/run-cli.js';
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
  assert.match(stdout, /Interrupted: \d+ of 40 requests have a record/);

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
});
