// Fault-matrix row: the records file's disk fills up under traffic. Every request is still answered in full; the
// file never holds a torn line; each request's record is either one whole line on disk or counted once in
// tokenmeter_records_lost_total{reason="disk_full"}; and once space returns, records are written again.
//
// A real full disk: a tmpfs a few records large (needs root to mount; skipped with the reason otherwise).
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { request } from 'undici';
import { startGateway } from '../gateway/helpers/gateway.js';
import { chatStreamSteps, playScript, startUpstream } from '../gateway/helpers/upstream.js';
import { idsInFile } from '../helpers/record-file-ids.js';
import { mountTinyDisk } from '../helpers/tiny-disk.js';
import { closeAndAccount } from './accounting.js';

/** tmpfs size: with the filler below, room for about a dozen records (each about 1 KiB). */
const DISK_BYTES = 64 * 1024;
const FILLER_BYTES = 48 * 1024;
/** Enough to fill what the filler leaves several times over. */
const REQUESTS_WHILE_FULL = 60;
const CONCURRENCY = 4;
/**
 * After a failure the writer holds off for DEFAULT_RETRY_AFTER_MS (1 s) before touching the disk again; writing
 * must resume within this bound once space is back (1 s plus the requests' own time, with room for a busy box).
 */
const RESUME_WITHIN_MS = 5000;

/** Sends one streamed chat request and reads the whole answer. */
async function chat(url: string, id: string): Promise<{ status: number; text: string }> {
  const response = await request(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': id },
    body: '{"model":"m","stream":true}',
  });
  return { status: response.statusCode, text: await response.body.text() };
}

function lostByReason(page: string): Record<string, number> {
  const lost: Record<string, number> = {};
  for (const m of page.matchAll(/^tokenmeter_records_lost_total\{reason="(\w+)"\} (\d+)$/gm)) {
    lost[m[1] as string] = Number(m[2]);
  }
  return lost;
}

test('records disk full: every request answered, each record a whole line or lost (disk_full) once, writing resumes', async (t) => {
  // Mounted first, so its cleanup runs after the gateway's: the records file is closed before the unmount.
  const dir = await mountTinyDisk(t, DISK_BYTES);
  if (dir === null) return;
  const filler = join(dir, 'filler');
  await writeFile(filler, Buffer.alloc(FILLER_BYTES));
  const file = join(dir, 'records.jsonl');

  const upstream = await startUpstream((_req, res) => playScript(res, chatStreamSteps(3, 1, 1, false), []));
  t.after(() => upstream.close());
  const gateway = await startGateway({
    upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }],
    records: { file },
  });
  let closed = false;
  t.after(async () => {
    if (!closed) await gateway.close();
  });

  const writer = gateway.context.records;
  assert.ok(writer !== null);
  const lostSoFar = (): number => {
    const { disk_full, write_error, queue_full } = writer.stats.lost;
    return disk_full + write_error + queue_full;
  };
  /** Waits until every record made so far is written or counted lost (the writer has nothing in hand). */
  const settled = async (count: number): Promise<void> => {
    await gateway.recordsAfter(count);
    for (let i = 0; i < 400 && writer.stats.written + lostSoFar() < count; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.equal(writer.stats.written + lostSoFar(), count, 'every record is accounted for within 2 s');
  };

  let sent = 0;
  const answers: { status: number; text: string }[] = [];
  const send = async (): Promise<void> => {
    answers.push(await chat(gateway.url, `full-${sent++}`));
  };

  // Traffic several times what fits, a few requests at a time so batches of several lines meet the full disk.
  while (sent < REQUESTS_WHILE_FULL) await Promise.all(Array.from({ length: CONCURRENCY }, send));
  await settled(sent);
  const idsWhileFull = idsInFile(await readFile(file, 'utf8'));
  assert.equal(
    idsWhileFull.length,
    writer.stats.written,
    'the file holds exactly the records counted written',
  );
  assert.ok(idsWhileFull.length > 0, 'some records fitted');
  assert.ok(writer.stats.lost.disk_full > 0, 'the disk filled up');

  // Space returns: requests go on, one at a time, until one of them is written again.
  await rm(filler);
  const freedAt = performance.now();
  const writtenWhileFull = writer.stats.written;
  while (writer.stats.written === writtenWhileFull && performance.now() - freedAt < RESUME_WITHIN_MS) {
    await send();
    await settled(sent);
  }
  const resumedAfterMs = performance.now() - freedAt;
  assert.ok(
    writer.stats.written > writtenWhileFull,
    `a record was written within ${RESUME_WITHIN_MS} ms of space returning`,
  );

  // Closing flushes what is queued; metrics are read from the gateway's registry, as a scrape would.
  closed = true;
  const records = await closeAndAccount(gateway, sent);
  const page = await gateway.context.metrics.registry.metrics();

  for (const answer of answers) {
    assert.equal(answer.status, 200);
    assert.match(answer.text, /data: \[DONE\]/, 'every answer reached the client whole');
  }
  const onDisk = idsInFile(await readFile(file, 'utf8'));
  const recorded = new Set(records.map((r) => r.requestId));
  assert.ok(
    onDisk.every((id) => recorded.has(id)),
    'every line on disk is a request that was sent',
  );
  assert.ok(onDisk.includes(`full-${sent - 1}`), 'the last request, sent after space returned, is on disk');
  assert.deepEqual(lostByReason(page), { disk_full: sent - onDisk.length, write_error: 0, queue_full: 0 });
  assert.equal(
    gateway.logs.filter((l) => l.includes('cannot write request records')).length,
    1,
    'the failure is logged once',
  );
  process.stdout.write(
    `# ${sent} requests: ${onDisk.length} records on disk, ${sent - onDisk.length} lost as disk_full; ` +
      `writing resumed ${Math.round(resumedAfterMs)} ms after space returned\n`,
  );
});
