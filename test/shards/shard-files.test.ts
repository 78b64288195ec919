// Shards never share an output file by accident (issue 20, item 11). Three `bench --shard I/3` processes started
// at once into one --result-dir with the default names get a result and a records file each (the names carry the
// shard), and `merge` of the folder equals the one-process run of the same seed in counts and tokens. A run whose
// result or records file is already there is refused in one line. `merge` refuses a shard missing, a torn line,
// records of another shard and a request recorded twice, each in one line with exit 1, unless --allow-partial.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { formatResultDate } from '../../loadgen/report/result-json.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { type CliResult, runCli } from '../helpers/run-cli.js';
import { bench, cleanEnv } from '../loadgen/helpers/bench-cli.js';
import { exactTiming } from '../loadgen/helpers/bench-fixtures.js';
import { RUN, seededRunFlags } from './shard-run.js';

let sim: RunningSimulator;
let root: string;
/** The three shards' folder, as they left it. */
let shardsDir: string;

function runFlags(dir: string): string[] {
  return seededRunFlags(sim.url, dir);
}

function jsonOf(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
}

/** The figures that must be exact between the merge and the one-process run. */
function countsAndTokens(json: Record<string, unknown>): Record<string, unknown> {
  const { completed, failed, total_input_tokens, total_output_tokens, num_prompts } = json;
  return { completed, failed, total_input_tokens, total_output_tokens, num_prompts };
}

/** A copy of the shards' folder to damage, so each case starts from the shards as they were. */
async function copyOfShards(name: string): Promise<string> {
  const copy = join(root, name);
  await cp(shardsDir, copy, { recursive: true });
  return copy;
}

/** The shards' files in shard order (their dates may differ by a second: shards start when they are ready). */
function filesIn(dir: string, suffix: string): string[] {
  const shardOf = (name: string): number => Number(/-shard(\d+)of3[.]/.exec(name)?.[1] ?? -1);
  return readdirSync(dir)
    .filter((name) => name.endsWith(suffix))
    .sort((a, b) => shardOf(a) - shardOf(b))
    .map((name) => join(dir, name));
}

/** Exit 1 and the refusal as one line, the last (bench says its target and dataset first), with no stack. */
function assertOneLineRefusal(result: CliResult, pattern: RegExp): void {
  assert.equal(result.code, 1, `refused with exit 1: ${result.stderr}`);
  const lines = result.stderr.trim().split('\n');
  assert.match(lines.at(-1) ?? '', pattern);
  assert.equal(lines.filter((line) => pattern.test(line)).length, 1, `said once: ${result.stderr}`);
  assert.doesNotMatch(result.stderr, /^\s+at /m, 'no stack trace');
}

before(async () => {
  sim = await startSimulator({ seed: 3, timing: exactTiming(10, 2) });
  root = mkdtempSync(join(tmpdir(), 'tokenmeter-shard-files-'));
  shardsDir = join(root, 'shards');
  // Started at once, default names: the way a user on one machine starts them.
  const runs = await Promise.all(
    [0, 1, 2].map((i) => bench([...runFlags(shardsDir), '--shard', `${i}/3`], cleanEnv())),
  );
  for (const run of runs) assert.equal(run.code, 0, run.stderr);
});
after(async () => {
  await sim.close();
});

test('three shards at once, default names: a file each, and merge equals the one-process run', async () => {
  const results = filesIn(shardsDir, '.json');
  assert.equal(results.length, 3, `three result files: ${results.join(', ')}`);
  for (let i = 0; i < 3; i++) assert.match(results[i] ?? '', new RegExp(`-shard${i}of3\\.json$`));
  assert.equal(filesIn(shardsDir, '.records.jsonl').length, 3, 'three records files');
  const wholeDir = join(root, 'whole');
  const whole = await bench([...runFlags(wholeDir), '--result-filename', 'whole.json'], cleanEnv());
  assert.equal(whole.code, 0, whole.stderr);
  const mergedDir = join(root, 'merged');
  const merge = await runCli(
    ['merge', shardsDir, '--save-result', '--result-dir', mergedDir, '--result-filename', 'merged.json'],
    cleanEnv(),
  );
  assert.equal(merge.code, 0, merge.stderr);
  assert.doesNotMatch(merge.stdout, /\d\/3 missing|are torn/);
  assert.deepEqual(
    countsAndTokens(jsonOf(join(mergedDir, 'merged.json'))),
    countsAndTokens(jsonOf(join(wholeDir, 'whole.json'))),
  );
});

test('a run whose result file or records file is already there is refused in one line', async () => {
  const dir = await copyOfShards('rerun');
  const [existing] = filesIn(dir, '.json');
  const name = existing?.split('/').pop() ?? '';
  const again = await bench([...runFlags(dir), '--shard', '0/3', '--result-filename', name], cleanEnv());
  assertOneLineRefusal(again, /already exists and this run did not write it/);
  const [records] = filesIn(dir, '.records.jsonl');
  const intoRecords = await bench(
    [...runFlags(join(root, 'rerun-elsewhere')), '--records-file', records ?? ''],
    cleanEnv(),
  );
  assertOneLineRefusal(intoRecords, /records\.jsonl already exists and this run did not write it/);
});

test('a run whose default name a run of the same second took is named -2, not refused', async () => {
  const first = join(root, 'same-second-first');
  assert.equal((await bench(runFlags(first), cleanEnv())).code, 0);
  const [taken] = filesIn(first, '.json').map((path) => path.split('/').pop() ?? '');
  // The default name ends with the date to the second: take every second the next run could start in, so it
  // meets a taken name whenever it starts.
  const stem = (taken ?? '').replace(/\d{8}-\d{6}\.json$/, '');
  const dir = join(root, 'same-second');
  mkdirSync(dir);
  const now = Date.now();
  for (let s = -5; s <= 120; s++) {
    writeFileSync(join(dir, `${stem}${formatResultDate(new Date(now + s * 1000))}.records.jsonl`), '');
  }
  const stubs = readdirSync(dir).length;
  const again = await bench(runFlags(dir), cleanEnv());
  assert.equal(again.code, 0, again.stderr);
  const results = readdirSync(dir).filter((name) => name.endsWith('.json'));
  assert.equal(results.length, 1);
  assert.match(results[0] ?? '', /-\d{8}-\d{6}-2\.json$/);
  const records = readFileSync(join(dir, (results[0] ?? '').replace(/\.json$/, '.records.jsonl')), 'utf8');
  assert.equal(records.trim().split('\n').length, RUN.prompts, 'its records beside it, under the -2 name');
  assert.equal(readdirSync(dir).length, stubs + 2, 'the files already there were left as they were');
});

test('merge refuses a missing shard; --allow-partial merges the rest and says so', async () => {
  const dir = await copyOfShards('missing');
  const files = filesIn(dir, '.json');
  const two = files.slice(0, 2);
  assertOneLineRefusal(await runCli(['merge', ...two], cleanEnv()), /shard 2\/3 missing/);
  const partial = await runCli(['merge', ...two, '--allow-partial'], cleanEnv());
  assert.equal(partial.code, 0, partial.stderr);
  assert.match(partial.stdout, /shard 2\/3 missing/);
});

test('merge refuses torn lines, records of another shard and a request recorded twice', async () => {
  const torn = await copyOfShards('torn');
  const [tornRecords] = filesIn(torn, '.records.jsonl');
  const lines = readFileSync(tornRecords ?? '', 'utf8').split('\n');
  // Two processes appending to one file leave a line cut short in the middle of it.
  lines.splice(1, 0, (lines[0] ?? '').slice(0, 40));
  writeFileSync(tornRecords ?? '', lines.join('\n'));
  assertOneLineRefusal(await runCli(['merge', torn], cleanEnv()), /1 lines of its records file are torn/);
  const tornAnyway = await runCli(['merge', torn, '--allow-partial'], cleanEnv());
  assert.equal(tornAnyway.code, 0, tornAnyway.stderr);
  assert.match(tornAnyway.stdout, /torn/);

  const foreign = await copyOfShards('foreign');
  const [zero, one] = filesIn(foreign, '.records.jsonl');
  const zeroLines = readFileSync(zero ?? '', 'utf8').split('\n');
  // Shard 0's first record moved into shard 1's file.
  writeFileSync(zero ?? '', zeroLines.slice(1).join('\n'));
  writeFileSync(one ?? '', `${readFileSync(one ?? '', 'utf8')}${zeroLines[0]}\n`);
  // The file's first line is the first request to finish, not necessarily #0.
  const moved = (JSON.parse(zeroLines[0] ?? '') as { index: number }).index;
  assertOneLineRefusal(
    await runCli(['merge', foreign], cleanEnv()),
    new RegExp(`1 of its records belong to another shard \\(request #${moved} is shard 0/3's\\)`),
  );

  const twice = await copyOfShards('twice');
  const [first] = filesIn(twice, '.records.jsonl');
  const text = readFileSync(first ?? '', 'utf8');
  const repeated = text.split('\n')[0] ?? '';
  writeFileSync(first ?? '', `${text}${repeated}\n`);
  const index = (JSON.parse(repeated) as { index: number }).index;
  assertOneLineRefusal(
    await runCli(['merge', twice], cleanEnv()),
    new RegExp(`request #${index} is recorded twice`),
  );
});
