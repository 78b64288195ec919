// A worker of `tokenmeter serve --workers 2` that dies (SIGKILL, as the OOM killer would) is replaced in its slot,
// and the gateway keeps serving on both workers; the metrics port (shared by the workers like the API port)
// answers for the whole gateway; SIGTERM then ends it with exit code 0.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { recordsFilesAt } from '../../src/measure/record-files.js';
import { parseRecordLines } from '../../src/measure/record-lines.js';
import { sendShortChatStream, startUpstream, type TestUpstream } from '../gateway/helpers/upstream.js';
import {
  type ClusterGateway,
  requestOnNewConnection,
  sampleSum,
  startClusterGateway,
} from './helpers/cluster-gateway.js';

const STREAMED = JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] });

let upstream: TestUpstream;
let gateway: ClusterGateway;
let folder: string;

before(async () => {
  upstream = await startUpstream((_req, res) => sendShortChatStream(res));
  folder = await mkdtemp(join(tmpdir(), 'tokenmeter-cluster-'));
  gateway = await startClusterGateway([
    '--upstream',
    `${upstream.url}/v1`,
    '--metrics-port',
    '0',
    '--records',
    join(folder, 'records.jsonl'),
  ]);
});

after(async () => {
  if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
  await upstream.close();
  await rm(folder, { recursive: true, force: true });
});

test('a killed worker is replaced in its slot and the gateway keeps serving on both', async () => {
  const [killed] = gateway.pids;
  assert.ok(killed !== undefined && gateway.metricsUrl !== null);
  process.kill(killed, 'SIGKILL');
  const [replaced] = await gateway.waitForLine(/worker (\d) replaced: pid (\d+) serves/);
  const newPid = Number(replaced?.[2]);
  assert.ok(!gateway.pids.includes(newPid));
  assert.ok(gateway.lines().some((l) => l.includes(`(pid ${killed}) exited on SIGKILL`)));

  const sent = 6;
  for (let i = 0; i < sent; i++) {
    const answer = await requestOnNewConnection(`${gateway.url}/v1/chat/completions`, 'POST', STREAMED);
    assert.equal(answer.status, 200);
  }
  // The API port has no /metrics when the metrics port is set; the metrics port answers for both workers.
  assert.equal((await requestOnNewConnection(`${gateway.url}/metrics`)).status, 404);
  let page = '';
  for (;;) {
    page = (await requestOnNewConnection(gateway.metricsUrl)).body;
    if (sampleSum(page, 'tokenmeter_requests_in_flight') === 0) break;
  }
  assert.equal(sampleSum(page, 'tokenmeter_requests_total'), sent);

  gateway.child.kill('SIGTERM');
  assert.equal(await gateway.exited, 0);
  // The replacement wrote to its predecessor's file; both workers served after the replacement.
  const files = recordsFilesAt(join(folder, 'records.jsonl'));
  assert.equal(files.length, 2);
  for (const file of files) {
    const lines = parseRecordLines(await readFile(file, 'utf8'));
    assert.equal(lines.malformed, 0);
    assert.ok(lines.records.length > 0, `${file} has records`);
  }
});
