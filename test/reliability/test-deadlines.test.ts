// Fault row: the suite itself meets a wait that never ends (a record that is lost, a test that never resolves).
// It fails, naming what it waited for, instead of hanging until CI's job limit: recordsAfter has a deadline, and
// scripts/run-tests.js gives every test one.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startGateway } from '../gateway/helpers/gateway.js';
import { startUpstream } from '../gateway/helpers/upstream.js';
import { withDeadline } from '../helpers/deadline.js';

const RUN_TESTS = fileURLToPath(new URL('../../../scripts/run-tests.js', import.meta.url));

test('a record that never comes: recordsAfter fails naming the count and what did arrive', async (t) => {
  const upstream = await startUpstream((_req, res) => res.end('{}'));
  const gateway = await startGateway({ upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }] });
  t.after(async () => {
    await gateway.close();
    await upstream.close();
  });
  const startedAt = performance.now();
  await assert.rejects(gateway.recordsAfter(1, 200), /waited 200 ms for 1 records, 0 arrived: \[\]/);
  assert.ok(performance.now() - startedAt < 5000);
});

test('a test that never resolves: the runner fails it (by its file on Node 20) within the timeout', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tokenmeter-hang-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'hangs.test.mjs');
  await writeFile(
    file,
    "import { test } from 'node:test';\ntest('waits for a record that was lost', () => new Promise(() => setInterval(() => {}, 1000)));\n",
  );
  // Without this run's NODE_TEST_CONTEXT, or the child's runner would refuse to run files inside a test.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const child = spawn(process.execPath, [RUN_TESTS, file], { env: { ...env, TEST_TIMEOUT_MS: '300' } });
  // Should the runner not give up, the deadline below fails this test; the child must not outlive it either, or it
  // keeps this file's process, and so the suite, waiting (CI under Node 24 waited 70 minutes on it).
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const code = await withDeadline(
    new Promise<number | null>((resolve) => child.once('exit', resolve)),
    () => `the runner to give up on the hanging test; output: ${out}`,
  );
  assert.notEqual(code, 0, out);
  // Node 20 bounds the file, Node 24 each test: either way the failure names where the wait was. Node 20 reports
  // in TAP to a pipe, Node 24 in its spec format.
  assert.match(out, /(not ok 1 - |✖ )(waits for a record that was lost|.*hangs\.test\.mjs)/);
  assert.match(out, /test timed out after 300ms/);
});
