// Records survive operations: logrotate's copytruncate (no NUL bytes, no torn line: the next line goes at the new
// end, noticed or not), a file renamed away or deleted (the path is opened anew at the first batch once the last
// look at it is rotationCheckMs old; 0 in the rows that check the look itself), reopen() on SIGHUP, and a close
// that gives up on a file that takes nothing (a FIFO nobody reads), counting what it held as lost.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rename, rm, stat, truncate, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_ROTATION_CHECK_MS, lostCount, RecordsWriter } from '../../src/shared/records-writer.js';
import { idsInFile } from '../helpers/record-file-ids.js';

function fakeRecord(i: number): { requestId: string; padding: string } {
  return { requestId: `r-${i}`, padding: 'x'.repeat(200 + ((i * 37) % 300)) };
}

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tokenmeter-rotation-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Waits until the writer has counted `added` records (written or lost), failing with the count it reached. */
async function settled(writer: RecordsWriter, added: number): Promise<void> {
  const deadline = performance.now() + 5000;
  while (writer.stats.written + lostCount(writer.stats) < added) {
    if (performance.now() > deadline) {
      assert.fail(`waited 5 s for ${added} records to be counted; counted ${writer.stats.written} written`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function ids(from: number, to: number): string[] {
  return Array.from({ length: to - from }, (_, i) => `r-${from + i}`);
}

/** The rows that check what a look at the path finds look before every batch. */
const LOOK_EVERY_BATCH = { rotationCheckMs: 0 };

function noWriterError(error: Error): never {
  assert.fail(error);
}

test('copytruncate: the next lines go at the new end, no NUL bytes, no torn line', async (t) => {
  const file = join(await tempDir(t), 'records.jsonl');
  const writer = new RecordsWriter(file, noWriterError);
  for (let i = 0; i < 40; i++) writer.add(fakeRecord(i));
  await settled(writer, 40);
  // What logrotate's copytruncate does: copy the file, then truncate it in place (the writer keeps its fd).
  await copyFile(file, `${file}.1`);
  await truncate(file, 0);
  for (let i = 40; i < 60; i++) writer.add(fakeRecord(i));
  await writer.close();
  const text = await readFile(file, 'utf8');
  assert.equal(text.indexOf('\0'), -1, 'no NUL bytes');
  assert.deepEqual(idsInFile(text), ids(40, 60));
  assert.deepEqual(idsInFile(await readFile(`${file}.1`, 'utf8')), ids(0, 40));
  assert.deepEqual(writer.stats, { written: 60, lost: { disk_full: 0, write_error: 0, queue_full: 0 } });
});

test('a file truncated to a partial line: the partial line is cut before the next line', async (t) => {
  const file = join(await tempDir(t), 'records.jsonl');
  const writer = new RecordsWriter(file, noWriterError, LOOK_EVERY_BATCH);
  for (let i = 0; i < 10; i++) writer.add(fakeRecord(i));
  await settled(writer, 10);
  const { size } = await stat(file);
  await truncate(file, Math.floor(size / 2)); // cut somewhere inside a line
  writer.add(fakeRecord(10));
  await writer.close();
  const got = idsInFile(await readFile(file, 'utf8'));
  assert.equal(got.at(-1), 'r-10');
  assert.deepEqual(got.slice(0, -1), ids(0, got.length - 1), 'the whole lines before the cut stay');
});

test('renamed away: the next batch creates the path anew; the renamed file keeps what it had', async (t) => {
  const file = join(await tempDir(t), 'records.jsonl');
  const writer = new RecordsWriter(file, noWriterError, LOOK_EVERY_BATCH);
  for (let i = 0; i < 10; i++) writer.add(fakeRecord(i));
  await settled(writer, 10);
  await rename(file, `${file}.1`);
  for (let i = 10; i < 25; i++) writer.add(fakeRecord(i));
  await writer.close();
  assert.deepEqual(idsInFile(await readFile(`${file}.1`, 'utf8')), ids(0, 10));
  assert.deepEqual(idsInFile(await readFile(file, 'utf8')), ids(10, 25));
  assert.equal(writer.stats.written, 25);
});

test('deleted: the next batch creates the path anew instead of writing to the deleted file', async (t) => {
  const file = join(await tempDir(t), 'records.jsonl');
  const writer = new RecordsWriter(file, noWriterError, LOOK_EVERY_BATCH);
  for (let i = 0; i < 10; i++) writer.add(fakeRecord(i));
  await settled(writer, 10);
  await unlink(file);
  for (let i = 10; i < 20; i++) writer.add(fakeRecord(i));
  await writer.close();
  assert.deepEqual(idsInFile(await readFile(file, 'utf8')), ids(10, 20));
});

test('by default a batch looks at the path once its last look is a second old: until then lines go to the file held', async (t) => {
  const file = join(await tempDir(t), 'records.jsonl');
  const writer = new RecordsWriter(file, noWriterError);
  for (let i = 0; i < 10; i++) writer.add(fakeRecord(i));
  await settled(writer, 10); // opened (a look) just now
  await rename(file, `${file}.1`);
  for (let i = 10; i < 15; i++) writer.add(fakeRecord(i));
  await settled(writer, 15);
  // Only the time since the look decides (monotonic clock), so waiting it out is exact, not a guess.
  await new Promise((resolve) => setTimeout(resolve, DEFAULT_ROTATION_CHECK_MS + 20));
  for (let i = 15; i < 20; i++) writer.add(fakeRecord(i));
  await writer.close();
  assert.deepEqual(idsInFile(await readFile(`${file}.1`, 'utf8')), ids(0, 15));
  assert.deepEqual(idsInFile(await readFile(file, 'utf8')), ids(15, 20));
  assert.equal(writer.stats.written, 20);
});

test('reopen() (SIGHUP) lets the old file go at once and creates the path, before any new record', async (t) => {
  const file = join(await tempDir(t), 'records.jsonl');
  const writer = new RecordsWriter(file, noWriterError);
  for (let i = 0; i < 5; i++) writer.add(fakeRecord(i));
  await settled(writer, 5);
  await rename(file, `${file}.1`);
  writer.reopen();
  const deadline = performance.now() + 5000;
  while (
    !(await stat(file).then(
      () => true,
      () => false,
    ))
  ) {
    assert.ok(performance.now() < deadline, 'waited 5 s for reopen() to create the path');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  for (let i = 5; i < 8; i++) writer.add(fakeRecord(i));
  await writer.close();
  assert.deepEqual(idsInFile(await readFile(`${file}.1`, 'utf8')), ids(0, 5));
  assert.deepEqual(idsInFile(await readFile(file, 'utf8')), ids(5, 8));
});

test('a truncating writer (a merge) empties the file on its first open only', async (t) => {
  const file = join(await tempDir(t), 'records.jsonl');
  const first = new RecordsWriter(file, noWriterError);
  first.add(fakeRecord(0));
  await first.close();
  const writer = new RecordsWriter(file, noWriterError, { firstOpen: 'truncate', ...LOOK_EVERY_BATCH });
  for (let i = 1; i < 4; i++) writer.add(fakeRecord(i));
  await settled(writer, 3);
  await truncate(file, 0); // copytruncate: later lines are appended, not a second emptying
  writer.add(fakeRecord(4));
  await settled(writer, 4);
  await rename(file, `${file}.1`);
  writer.add(fakeRecord(5));
  await writer.close();
  assert.deepEqual(idsInFile(await readFile(file, 'utf8')), ['r-5']);
  assert.deepEqual(idsInFile(await readFile(`${file}.1`, 'utf8')), ['r-4']);
});

test('close(giveUpAfterMs) on a FIFO nobody reads: resolves in time, every record written or counted lost', async (t) => {
  if (process.platform === 'win32') {
    t.skip('needs mkfifo');
    return;
  }
  const fifo = join(await tempDir(t), 'records.fifo');
  try {
    execFileSync('mkfifo', [fifo]);
  } catch (error) {
    t.skip(`mkfifo failed: ${(error as Error).message}`);
    return;
  }
  const writer = new RecordsWriter(fifo, noWriterError);
  const added = 2000; // ~700 KiB: far more than the pipe holds
  for (let i = 0; i < added; i++) writer.add(fakeRecord(i));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const began = performance.now();
  await writer.close(200);
  const tookMs = performance.now() - began;
  // The bound is the deadline plus the busy-retry wait the deadline interrupts; 2 s leaves room for a busy box.
  assert.ok(tookMs < 2000, `close gave up in ${tookMs.toFixed(0)} ms`);
  assert.ok(writer.stats.written > 0 && writer.stats.written < added, `${writer.stats.written} written`);
  assert.equal(writer.stats.written + lostCount(writer.stats), added, 'every record written or counted lost');
  // A write that was under way when close gave up returns at once (EAGAIN): none stays parked in the threadpool.
  const deadline = performance.now() + 2000;
  while (writer.writeStuck) {
    assert.ok(performance.now() < deadline, 'a write to the FIFO stayed parked for 2 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  writer.add(fakeRecord(added));
  assert.equal(writer.stats.lost.write_error, added + 1 - writer.stats.written);
});
