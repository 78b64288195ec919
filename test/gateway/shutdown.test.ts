// Graceful shutdown: new connections are refused at once, a stream in flight finishes (within the grace
// period) and its record is flushed; past the grace period what remains is cut, and recorded as truncated (the
// gateway cut it, not the client).
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { Agent, request } from 'undici';
import { shutDown } from '../../src/gateway/shutdown.js';
import { startGateway } from './helpers/gateway.js';
import { chatStreamSteps, playScript, startUpstream, type TestUpstream } from './helpers/upstream.js';

let upstream: TestUpstream;
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tokenmeter-shutdown-'));
  upstream = await startUpstream((req, res) => {
    const gap = Number(req.headers['x-gap-ms'] ?? 30);
    playScript(res, chatStreamSteps(10, gap, gap, false), []);
  });
});
after(async () => {
  await upstream.close();
  await rm(dir, { recursive: true, force: true });
});

test('an in-flight stream finishes and is recorded; new connections are refused', async () => {
  const file = join(dir, 'records.jsonl');
  const gateway = await startGateway({
    upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }],
    records: { file },
  });
  const response = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"model":"m","stream":true}',
  });
  const closing = shutDown(gateway, 5000);
  await assert.rejects(request(`${gateway.url}/healthz`, { reset: true }), /ECONNREFUSED/);
  const text = await response.body.text();
  assert.ok(text.endsWith('data: [DONE]\n\n'), 'the stream completed');
  await closing;
  const lines = (await readFile(file, 'utf8')).trim().split('\n');
  assert.equal(lines.length, 1);
  assert.equal((JSON.parse(lines[0] ?? '{}') as { outcome: string }).outcome, 'ok');
});

test('past the grace period remaining streams are cut, and recorded as truncated by the gateway', async () => {
  const gateway = await startGateway({ upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }] });
  const response = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gap-ms': '1000' },
    body: '{"model":"m","stream":true}',
  });
  const started = performance.now();
  await shutDown(gateway, 200);
  const took = performance.now() - started;
  assert.ok(took < 2000, `closed after ${took} ms, not after the 10 s stream`);
  await assert.rejects(response.body.text());
  const [record] = await gateway.recordsAfter(1);
  assert.equal(record?.outcome, 'truncated');
  assert.match(record?.error ?? '', /shutting down and shutdownGraceMs ran out/);
});

test('shutdown ends when the last stream ends, not when the grace period does, though the client keeps its connection alive', async (t) => {
  const gateway = await startGateway({ upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }] });
  const client = new Agent({ keepAliveTimeout: 60_000 });
  try {
    const response = await request(`${gateway.url}/v1/chat/completions`, {
      dispatcher: client,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gap-ms': '50' },
      body: '{"model":"m","stream":true}',
    });
    const graceMs = 20_000;
    const closing = shutDown(gateway, graceMs);
    const text = await response.body.text();
    const streamEnded = performance.now();
    assert.ok(text.endsWith('data: [DONE]\n\n'), 'the stream completed');
    await closing;
    const afterStreamMs = performance.now() - streamEnded;
    t.diagnostic(`shutdown ended ${afterStreamMs.toFixed(1)} ms after the stream`);
    // Measured: 2.3 ms after the stream's end; without closing idle connections, 19.5 s (the grace period).
    assert.ok(
      afterStreamMs < graceMs / 4,
      `shutdown took ${afterStreamMs.toFixed(0)} ms after the stream ended`,
    );
  } finally {
    await client.close();
  }
});
