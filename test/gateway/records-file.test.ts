// Records go to a JSON Lines file, written off the hot path and flushed on close; a disk that fails does not
// stop traffic: the lost records are counted in /metrics and the failure logged once.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startGateway } from './helpers/gateway.js';
import { chatStreamSteps, playScript, startUpstream, type TestUpstream } from './helpers/upstream.js';

let upstream: TestUpstream;
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tokenmeter-records-'));
  upstream = await startUpstream((_req, res) => playScript(res, chatStreamSteps(3, 1, 1, false), []));
});
after(async () => {
  await upstream.close();
  await rm(dir, { recursive: true, force: true });
});

async function chat(url: string, id: string): Promise<number> {
  const response = await request(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': id },
    body: '{"model":"m","stream":true}',
  });
  await response.body.text();
  return response.statusCode;
}

test('one line per request with the documented fields, flushed when the gateway closes', async () => {
  const file = join(dir, 'records.jsonl');
  const gateway = await startGateway({
    upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }],
    records: { file, gaps: true },
  });
  for (let i = 0; i < 5; i++) assert.equal(await chat(gateway.url, `rec-${i}`), 200);
  await gateway.close();
  const lines = (await readFile(file, 'utf8')).trim().split('\n');
  assert.equal(lines.length, 5);
  const record = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
  assert.equal(record['requestId'], 'rec-0');
  for (const field of [
    'upstream',
    'modelAsked',
    'modelSent',
    'pathAsked',
    'pathSent',
    'status',
    'outcome',
    'ttfbMs',
    'ttftMs',
    'e2eMs',
    'tpotMs',
    'gatewayOverheadMs',
    'outputTokens',
    'contentChunks',
    'itlMs',
    'error',
  ]) {
    assert.ok(field in record, field);
  }
  assert.equal((record['itlMs'] as number[]).length, 2);
});

test('an unwritable records file is counted, logged once, and traffic goes on', async (t) => {
  const file = join(dir, 'no-such-directory', 'records.jsonl');
  const gateway = await startGateway({
    upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }],
    records: { file },
  });
  t.after(() => gateway.close());
  for (let i = 0; i < 3; i++) {
    assert.equal(await chat(gateway.url, `lost-${i}`), 200);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await gateway.recordsAfter(3);
  let metrics = '';
  const lostAsWriteError = /tokenmeter_records_lost_total\{reason="write_error"\} [1-9]/;
  for (let tries = 0; tries < 50 && !lostAsWriteError.test(metrics); tries++) {
    metrics = await (await request(`${gateway.url}/metrics`)).body.text();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.match(metrics, lostAsWriteError, 'a missing directory is a write error, not a full disk');
  assert.match(metrics, /tokenmeter_records_lost_total\{reason="disk_full"\} 0/);
  assert.equal(gateway.logs.filter((l) => l.includes('cannot write request records')).length, 1);
});
