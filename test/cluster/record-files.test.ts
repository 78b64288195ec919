// Where a gateway's records are: FILE for one process, FILE's worker files beside it for `serve --workers N`; a
// reader that names FILE reads every one of them.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readGatewayRecords } from '../../loadgen/gateway-timings.js';
import { readRecordsText, recordsFilesAt, workerRecordsPath } from '../../src/measure/record-files.js';
import { parseRecordLines } from '../../src/measure/record-lines.js';

test('worker files are named by slot before the extension', () => {
  assert.equal(workerRecordsPath('out/records.jsonl', 2), 'out/records.worker2.jsonl');
  assert.equal(workerRecordsPath('out/records', 1), 'out/records.worker1');
  assert.equal(workerRecordsPath('out.d/gw', 3), 'out.d/gw.worker3');
});

test('a reader naming FILE gets FILE alone, or its worker files in slot order, a torn last line kept apart', async (t) => {
  const folder = await mkdtemp(join(tmpdir(), 'tokenmeter-records-'));
  t.after(() => rm(folder, { recursive: true, force: true }));
  const path = join(folder, 'records.jsonl');
  assert.deepEqual(recordsFilesAt(path), [path]);
  assert.throws(() => readRecordsText(path), { code: 'ENOENT' });

  await writeFile(join(folder, 'records.worker10.jsonl'), '{"requestId":"c"}\n');
  await writeFile(join(folder, 'records.worker2.jsonl'), '{"requestId":"b"}\n{"requestId":"tor');
  await writeFile(join(folder, 'records.worker1.jsonl'), '{"requestId":"a"}\n');
  await writeFile(join(folder, 'other.worker1.jsonl'), '{"requestId":"x"}\n');
  assert.deepEqual(
    recordsFilesAt(path).map((f) => f.slice(folder.length + 1)),
    ['records.worker1.jsonl', 'records.worker2.jsonl', 'records.worker10.jsonl'],
  );
  const lines = parseRecordLines(readRecordsText(path));
  assert.deepEqual(
    lines.records.map((r) => r['requestId']),
    ['a', 'b', 'c'],
  );
  assert.equal(lines.malformed, 1);

  // A single process's file from an earlier run, beside the workers': both are this path's records.
  await writeFile(path, '{"requestId":"single"}\n');
  assert.equal(recordsFilesAt(path)[0], path);
  assert.equal(parseRecordLines(readRecordsText(path)).records.length, 4);
});

test("bench --gateway-records reads the workers' files of the path it is given", async (t) => {
  const folder = await mkdtemp(join(tmpdir(), 'tokenmeter-records-'));
  t.after(() => rm(folder, { recursive: true, force: true }));
  await writeFile(join(folder, 'gw.worker1.jsonl'), '{"requestId":"bench-1","ttftMs":10,"e2eMs":20}\n');
  await writeFile(join(folder, 'gw.worker2.jsonl'), '{"requestId":"bench-2","ttftMs":11,"e2eMs":21}\n');
  assert.deepEqual(
    readGatewayRecords(join(folder, 'gw.jsonl')).map((r) => r.requestId),
    ['bench-1', 'bench-2'],
  );
});
