// Fault-matrix rows for what operators do to a records file under a real `tokenmeter serve` (issue 20, items
// 7-9): logrotate's copytruncate, a rename followed by SIGHUP (also to a --workers primary, which passes it on),
// a deletion, and a records FIFO nobody reads standing in for a hung mount at shutdown. Each row asserts what the
// clients received, the records (every line parses, no NUL byte) and the accounting: one record or one counted
// loss per request.
import assert from 'node:assert/strict';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { copyFile, mkdtemp, rename, rm, stat, truncate, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RequestRecord } from '../../src/gateway/records/record.js';
import { workerRecordsPath } from '../../src/measure/record-files.js';
import { DEFAULT_ROTATION_CHECK_MS } from '../../src/shared/records-writer.js';
import {
  chatStreamSteps,
  playScript,
  startUpstream,
  type TestUpstream,
} from '../gateway/helpers/upstream.js';
import { withDeadline } from '../helpers/deadline.js';
import { drainPipe, sendStreams, strictRecordsIn, until, wholeLinesIn } from '../helpers/records-files.js';
import { startCli } from '../helpers/run-cli.js';
import { assertOneRecordPerRequest } from './accounting.js';

let upstream: TestUpstream;
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tokenmeter-records-ops-'));
  upstream = await startUpstream((_req, res) => playScript(res, chatStreamSteps(3, 1, 1, false), []));
});
after(async () => {
  await upstream.close();
  await rm(dir, { recursive: true, force: true });
});

interface Served {
  readonly child: ChildProcessWithoutNullStreams;
  readonly url: string;
  readonly output: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>;
}

async function serve(
  name: string,
  records: string,
  extra: Record<string, unknown> = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<Served> {
  const configFile = join(dir, `${name}.json`);
  await writeFile(
    configFile,
    JSON.stringify({
      port: 0,
      upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }],
      records: { file: records },
      ...extra,
    }),
  );
  const { child, match, output } = await startCli(
    ['serve', '--config', configFile],
    /listening on (http:\S+)\/v1/,
    env,
  );
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>(
    (resolve) => child.once('exit', (code, signal) => resolve({ code, signal, atMs: performance.now() })),
  );
  return { child, url: match[1] ?? '', output, exited };
}

/** Waits until `files` together hold `count` records: the writer batches off the request path. */
function untilRecorded(files: readonly string[], count: number): Promise<void> {
  return until(`${count} records in ${files.join(', ')}`, async () => {
    let held = 0;
    for (const file of files) held += await wholeLinesIn(file);
    return held >= count;
  });
}

function untilExists(paths: readonly string[]): Promise<void> {
  return until(`${paths.join(', ')} to be created again`, async () =>
    (
      await Promise.all(
        paths.map((p) =>
          stat(p).then(
            () => true,
            () => false,
          ),
        ),
      )
    ).every(Boolean),
  );
}

function idsOf(records: readonly RequestRecord[]): string[] {
  return records.map((r) => r.requestId).sort();
}

async function stop(served: Served): Promise<number | null> {
  served.child.kill('SIGTERM');
  return (await served.exited).code;
}

test('item 7, copytruncate: the lines after the truncation start at the new end; no NUL, no torn line, none lost', async (t) => {
  const file = join(dir, 'copytruncate.jsonl');
  const served = await serve('copytruncate', file);
  t.after(() => served.child.kill('SIGKILL'));
  const before = await sendStreams(served.url, 'before', 30);
  await untilRecorded([file], 30);
  // logrotate's copytruncate: copy the file aside, then truncate it in place while the gateway holds it open.
  await copyFile(file, `${file}.1`);
  await truncate(file, 0);
  const afterIds = await sendStreams(served.url, 'after', 30);
  assert.equal(await stop(served), 0);
  const rotated = await strictRecordsIn(`${file}.1`);
  const current = await strictRecordsIn(file);
  assert.deepEqual(idsOf(rotated), [...before].sort());
  assert.deepEqual(idsOf(current), [...afterIds].sort());
  assertOneRecordPerRequest([...rotated, ...current], 60);
  assert.doesNotMatch(served.output(), /are lost/);
});

test('item 8, rename + SIGHUP, then deletion: the path is created anew each time and gets the later records', async (t) => {
  const file = join(dir, 'rename.jsonl');
  const served = await serve('rename', file);
  t.after(() => served.child.kill('SIGKILL'));
  const first = await sendStreams(served.url, 'first', 20);
  await untilRecorded([file], 20);
  await rename(file, `${file}.1`);
  served.child.kill('SIGHUP');
  await untilExists([file]); // created by the reopen itself, before any new record
  const second = await sendStreams(served.url, 'second', 20);
  await untilRecorded([file], 20);
  // Deleted with no signal at all: the first batch once the writer's last look at the path is a second old
  // (DEFAULT_ROTATION_CHECK_MS, a monotonic clock's interval) notices the path no longer names its file. Lines of
  // that second would go to the deleted file, so the third twenty are sent once it has passed.
  await unlink(file);
  await new Promise((resolve) => setTimeout(resolve, DEFAULT_ROTATION_CHECK_MS + 20));
  const third = await sendStreams(served.url, 'third', 20);
  await untilRecorded([file], 20);
  assert.equal(await stop(served), 0);
  assert.match(served.output(), /SIGHUP: reopening the records file/);
  const renamed = await strictRecordsIn(`${file}.1`);
  const recreated = await strictRecordsIn(file);
  assert.deepEqual(idsOf(renamed), [...first].sort());
  assert.deepEqual(idsOf(recreated), [...third].sort(), 'the records after the deletion, in a new file');
  // The second twenty were in the file the operator deleted: written, and gone with it.
  assertOneRecordPerRequest([...renamed, ...recreated], first.length + third.length);
  assert.equal(second.length, 20);
  assert.doesNotMatch(served.output(), /are lost/);
});

test('item 8 with --workers 2: SIGHUP to the primary makes every worker reopen its own file', async (t) => {
  const file = join(dir, 'workers.jsonl');
  const served = await serve('workers', file, { workers: 2 });
  t.after(() => served.child.kill('SIGKILL'));
  const files = [workerRecordsPath(file, 1), workerRecordsPath(file, 2)];
  const first = await sendStreams(served.url, 'first', 20);
  await untilRecorded(files, 20);
  for (const f of files) await rename(f, `${f}.1`);
  served.child.kill('SIGHUP');
  await untilExists(files);
  const second = await sendStreams(served.url, 'second', 20);
  await untilRecorded(files, 20);
  assert.equal(await stop(served), 0);
  const renamed = (await Promise.all(files.map((f) => strictRecordsIn(`${f}.1`)))).flat();
  const current = (await Promise.all(files.map((f) => strictRecordsIn(f)))).flat();
  assert.deepEqual(idsOf(renamed), [...first].sort());
  assert.deepEqual(idsOf(current), [...second].sort());
  assertOneRecordPerRequest([...renamed, ...current], 40);
});

test('item 9, records FIFO nobody reads: SIGTERM ends the process within its grace, the rest counted lost', async (t) => {
  if (process.platform === 'win32') {
    t.skip('needs mkfifo');
    return;
  }
  const fifo = join(dir, 'stalled.fifo');
  execFileSync('mkfifo', [fifo]);
  // Held open and never read while the gateway runs: the pipe fills (64 KiB) and stays full, as a hung mount.
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  t.after(() => closeSync(reader));
  const graceMs = 1500;
  const served = await serve('stalled', fifo, { shutdownGraceMs: graceMs });
  t.after(() => served.child.kill('SIGKILL'));
  const sent = 150; // ~1 KiB records: more than twice what the pipe holds
  await sendStreams(served.url, 'r', sent);
  const signalAt = performance.now();
  served.child.kill('SIGTERM');
  const { code, atMs } = await served.exited;
  const tookMs = atMs - signalAt;
  t.diagnostic(`exited ${tookMs.toFixed(0)} ms after SIGTERM (grace ${graceMs} ms)`);
  assert.equal(code, 0);
  // The grace period plus process teardown; 2 s of room for a busy box.
  assert.ok(tookMs < graceMs + 2000, `exited ${tookMs.toFixed(0)} ms after SIGTERM`);
  const lost = Number(/"recordsLost":(\d+)/.exec(served.output())?.[1] ?? -1);
  assert.ok(lost > 0, `the log counts the lost records (${served.output().slice(-400)})`);
  // A pipe cannot be cut back: the line it was taking when the gateway gave up stays as a last fragment.
  const lines = drainPipe(reader).split('\n').slice(0, -1);
  const written = lines.map((line) => (JSON.parse(line) as RequestRecord).requestId);
  assert.equal(new Set(written).size, written.length, 'no record twice');
  assert.equal(written.length + lost, sent, 'one record or one counted loss per request');
});

/** A `serve` whose threadpool threads all park on a FIFO open at SIGUSR2 (test/helpers/park-threadpool.ts). */
async function serveParked(name: string, file: string, config: Record<string, unknown>): Promise<Served> {
  const fifo = join(dir, `${name}.fifo`);
  execFileSync('mkfifo', [fifo]);
  const fixture = pathToFileURL(fileURLToPath(new URL('../helpers/park-threadpool.js', import.meta.url)));
  return serve(name, file, config, {
    ...process.env,
    NODE_OPTIONS: `--import="${fixture}"`,
    UV_THREADPOOL_SIZE: '2',
    TOKENMETER_TEST_PARK_FIFO: fifo,
  });
}

for (const variant of [
  { how: 'the grace period ends', graceMs: 1500, delayMs: 0, endsWithinMs: 1500 },
  // A grace far longer than the test: only the second signal can end it (the records then get 1 s).
  { how: 'a second SIGTERM arrives', graceMs: 60_000, delayMs: 10_000, endsWithinMs: 1000 },
]) {
  test(`item 9, a records write that never returns (every threadpool thread parked, as on a hung mount): the process ends when ${variant.how}, the rest counted lost in one line`, async (t) => {
    if (process.platform === 'win32') {
      t.skip('needs mkfifo');
      return;
    }
    const name = variant.delayMs === 0 ? 'parked-grace' : 'parked-second';
    const file = join(dir, `${name}.jsonl`);
    const served = await serveParked(name, file, {
      shutdownGraceMs: variant.graceMs,
      shutdownDelayMs: variant.delayMs,
    });
    t.after(() => served.child.kill('SIGKILL'));
    const before = await sendStreams(served.url, 'before', 10);
    await untilRecorded([file], 10);
    served.child.kill('SIGUSR2');
    await until('the child to park its threadpool', async () =>
      served.output().includes('threadpool thread parked'),
    );
    await sendStreams(served.url, 'after', 10);
    let signalAt = performance.now();
    served.child.kill('SIGTERM');
    if (variant.delayMs > 0) {
      // The log is parked with the rest: /readyz failing says the first signal was taken.
      await until('/readyz to fail after the first SIGTERM', async () => {
        const response = await fetch(`${served.url}/readyz`).catch(() => null);
        return response !== null && response.status === 503;
      });
      signalAt = performance.now();
      served.child.kill('SIGTERM');
    }
    const { code, signal, atMs } = await withDeadline(
      served.exited,
      () => `the gateway to end with its records write parked: ${served.output().slice(-600)}`,
    );
    const tookMs = atMs - signalAt;
    t.diagnostic(`ended ${tookMs.toFixed(0)} ms after the last SIGTERM, code ${code}, signal ${signal}`);
    // Node's exit would wait for the parked threads forever: the process ends by SIGTERM's default action instead.
    assert.equal(signal, 'SIGTERM');
    // What the process is owed, plus 2 s of room for a busy box.
    assert.ok(tookMs < variant.endsWithinMs + 2000, `ended ${tookMs.toFixed(0)} ms after the last SIGTERM`);
    const lostLines = served
      .output()
      .split('\n')
      .filter((line) => line.includes('could not be written'));
    assert.equal(lostLines.length, 1, served.output().slice(-1500));
    assert.match(lostLines[0] ?? '', /"recordsLost":10\b.*never returned/);
    assert.match(lostLines[0] ?? '', /"recordsWritten":10\b/);
    assert.deepEqual(idsOf(await strictRecordsIn(file)), [...before].sort());
  });
}

// Issue 30 item 12: records holding users' prompts (records.bodies) are created 0600 whatever the umask (022 here,
// which made them 0644 before), the file reopened after a rename and SIGHUP too; the load generator's records go
// through the same writer (src/shared/records-writer.ts).
test('item 12, records with bodies: created 0600, and again after a rename and SIGHUP', async (t) => {
  const file = join(dir, 'bodies.jsonl');
  const served = await serve('bodies', file, { records: { file, bodies: true } });
  t.after(() => served.child.kill('SIGKILL'));
  const first = await sendStreams(served.url, 'bodies-first', 5);
  await untilRecorded([file], 5);
  assert.equal((await stat(file)).mode & 0o777, 0o600, 'the records file as created');
  await rename(file, `${file}.1`);
  served.child.kill('SIGHUP');
  await untilExists([file]);
  assert.equal((await stat(file)).mode & 0o777, 0o600, 'the records file created again after SIGHUP');
  const second = await sendStreams(served.url, 'bodies-second', 5);
  await untilRecorded([file], 5);
  assert.equal(await stop(served), 0);
  const records = [...(await strictRecordsIn(`${file}.1`)), ...(await strictRecordsIn(file))];
  assert.deepEqual(idsOf(records), [...first, ...second].sort());
  assert.ok(records.every((r) => r.requestBody === '{"model":"m","stream":true}' && r.outcome === 'ok'));
  assertOneRecordPerRequest(records, 10);
});
