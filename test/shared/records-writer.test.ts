// The records writer writes each record whole or counts it lost, exactly once: a full disk leaves no torn line
// and writing resumes when space returns; a stalled file holds no more than the stated bytes in memory.
// Rotation and shutdown: test/shared/records-rotation.test.ts.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RequestRecord } from '../../src/gateway/records/record.js';
import { lostReasonOf, RecordsWriter } from '../../src/shared/records-writer.js';
import { idsInFile } from '../helpers/record-file-ids.js';
import { mountTinyDisk } from '../helpers/tiny-disk.js';

/** A record-shaped object; the varying padding makes batch boundaries fall mid-line. */
function fakeRecord(i: number, padding = 900 + ((i * 37) % 200)): RequestRecord {
  return { requestId: `r-${i}`, padding: 'x'.repeat(padding) } as unknown as RequestRecord;
}

function lost(writer: RecordsWriter): number {
  const { disk_full, write_error, queue_full } = writer.stats.lost;
  return disk_full + write_error + queue_full;
}

function accounted(writer: RecordsWriter): number {
  return writer.stats.written + lost(writer);
}

async function settled(writer: RecordsWriter, added: number): Promise<void> {
  for (let i = 0; i < 500 && accounted(writer) < added; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.equal(accounted(writer), added, 'every record is counted once');
}

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tokenmeter-writer-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test('records appended after the existing lines, each whole, close() flushes', async (t) => {
  const file = join(await tempDir(t), 'records.jsonl');
  await writeFile(file, '{"requestId":"earlier"}\n');
  const writer = new RecordsWriter(file, (error) => assert.fail(error));
  for (let i = 0; i < 50; i++) writer.add(fakeRecord(i));
  await writer.close();
  assert.deepEqual(writer.stats, { written: 50, lost: { disk_full: 0, write_error: 0, queue_full: 0 } });
  const ids = idsInFile(await readFile(file, 'utf8'));
  assert.deepEqual(ids, ['earlier', ...Array.from({ length: 50 }, (_, i) => `r-${i}`)]);
  writer.add(fakeRecord(50));
  assert.equal(writer.stats.lost.write_error, 1, 'a record after close is counted, not written');
});

test('a file that cannot be opened loses its records as write_error; ENOSPC and EDQUOT are disk_full', async (t) => {
  const file = join(await tempDir(t), 'no-such-directory', 'records.jsonl');
  const codes: string[] = [];
  const writer = new RecordsWriter(file, (error) => codes.push((error as { code?: string }).code ?? ''));
  for (let i = 0; i < 3; i++) writer.add(fakeRecord(i));
  await settled(writer, 3);
  assert.deepEqual(writer.stats.lost, { disk_full: 0, write_error: 3, queue_full: 0 });
  assert.deepEqual(codes, ['ENOENT']);
  await writer.close();
  // EDQUOT (a user's quota) cannot be caused without quotas on the test machine; the rule is checked directly.
  assert.equal(lostReasonOf(Object.assign(new Error('quota'), { code: 'EDQUOT' })), 'disk_full');
  assert.equal(lostReasonOf(Object.assign(new Error('full'), { code: 'ENOSPC' })), 'disk_full');
  assert.equal(lostReasonOf(Object.assign(new Error('io'), { code: 'EIO' })), 'write_error');
});

test('a partial last line left by a crash is cut when the file is opened', async (t) => {
  const file = join(await tempDir(t), 'records.jsonl');
  await writeFile(file, '{"requestId":"whole"}\n{"requestId":"to');
  const writer = new RecordsWriter(file, (error) => assert.fail(error));
  writer.add(fakeRecord(1));
  await writer.close();
  assert.deepEqual(idsInFile(await readFile(file, 'utf8')), ['whole', 'r-1']);
});

test('disk full: no torn line, each record written or lost (disk_full) once, writing resumes when space returns', async (t) => {
  const dir = await mountTinyDisk(t, 64 * 1024);
  if (dir === null) return;
  // Ballast takes half the space, so freeing it later is the operator clearing the disk.
  const ballast = join(dir, 'ballast');
  await writeFile(ballast, Buffer.alloc(32 * 1024));
  const file = join(dir, 'records.jsonl');
  const errors: string[] = [];
  const writer = new RecordsWriter(file, (error) => errors.push((error as { code?: string }).code ?? ''), {
    retryAfterMs: 20,
  });
  let added = 0;
  const addBatch = (n: number): void => {
    for (let i = 0; i < n; i++) writer.add(fakeRecord(added++));
  };
  // Batches of 7 records (~7 KiB) against ~32 KiB of room: the one that does not fit is written in part.
  while (writer.stats.lost.disk_full === 0 && added < 200) {
    addBatch(7);
    await settled(writer, added);
  }
  assert.ok(writer.stats.lost.disk_full > 0, 'the disk filled up');
  assert.ok(errors.includes('ENOSPC'), `the failure is ENOSPC (got ${errors.join(', ')})`);
  assert.notEqual(
    writer.stats.written % 7,
    0,
    'the batch that did not fit was written in part (a short write)',
  );
  let ids = idsInFile(await readFile(file, 'utf8'));
  assert.equal(ids.length, writer.stats.written, 'the file holds exactly the records counted written');

  // Still full: more records fail, and the file stays whole.
  await new Promise((resolve) => setTimeout(resolve, 30));
  addBatch(7);
  await settled(writer, added);
  ids = idsInFile(await readFile(file, 'utf8'));
  assert.equal(ids.length, writer.stats.written);

  // Space returns: after the retry delay, records are written again.
  await rm(ballast);
  await new Promise((resolve) => setTimeout(resolve, 30));
  const writtenBefore = writer.stats.written;
  addBatch(7);
  await settled(writer, added);
  await writer.close();
  assert.equal(writer.stats.written, writtenBefore + 7, 'writing resumed');
  ids = idsInFile(await readFile(file, 'utf8'));
  assert.equal(ids.length, writer.stats.written);
  assert.equal(writer.stats.written + writer.stats.lost.disk_full, added, 'every loss was the full disk');
});

test('a stalled file holds at most maxPendingBytes of lines; the rest is dropped and counted', async (t) => {
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
  // A FIFO nobody reads: the first write fills the pipe (64 KiB) and then waits, as on a stalled disk.
  const bound = 256 * 1024;
  const writer = new RecordsWriter(fifo, (error) => assert.fail(error), { maxPendingBytes: bound });
  let fits = 0;
  for (let held = 0; ; fits++) {
    held += Buffer.byteLength(`${JSON.stringify(fakeRecord(fits, 1000))}\n`);
    if (held > bound) break;
  }
  for (let i = 0; i < 2000; i++) writer.add(fakeRecord(i, 1000));
  assert.equal(writer.stats.lost.queue_full, 2000 - fits);
  await new Promise((resolve) => setTimeout(resolve, 100));
  // The pipe took what fits in it (64 KiB): those lines are the OS's now, counted written; then it stalls.
  const stalledAt = writer.stats.written;
  assert.ok(stalledAt * 1000 <= 64 * 1024, `no more lines than the pipe holds (${stalledAt})`);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(writer.stats.written, stalledAt, 'the write is stalled');
  for (let i = 2000; i < 3000; i++) writer.add(fakeRecord(i, 1000));
  assert.equal(writer.stats.lost.queue_full, 3000 - fits, 'the batch being written counts against the bound');
  assert.ok(writer.pendingBytes <= bound);

  // A reader arrives: everything held is written, then close() ends the file.
  const chunks: Buffer[] = [];
  const reader = createReadStream(fifo);
  reader.on('data', (chunk) => chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve) => reader.on('end', () => resolve()));
  await writer.close();
  await ended;
  assert.deepEqual(writer.stats, {
    written: fits,
    lost: { disk_full: 0, write_error: 0, queue_full: 3000 - fits },
  });
  assert.equal(writer.pendingBytes, 0);
  const ids = idsInFile(Buffer.concat(chunks).toString('utf8'));
  assert.deepEqual(
    ids,
    Array.from({ length: fits }, (_, i) => `r-${i}`),
  );
});
