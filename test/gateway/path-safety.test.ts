// Paths outside the API answer 404 in OpenAI's format and never reach the upstream. Traversal, absolute-form
// targets and foreign Host headers are the fault matrix's (test/reliability/client-faults.test.ts).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import { startUpstream, type TestUpstream } from './helpers/upstream.js';

let upstream: TestUpstream;
let gateway: TestGateway;

before(async () => {
  upstream = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  gateway = await startGateway({
    upstreams: [{ name: 'u', baseUrl: `${upstream.url}/api/v1`, keyless: true }],
  });
});
after(async () => {
  await gateway.close();
  await upstream.close();
});

test('paths outside the API answer 404 in OpenAI format listing what is accepted, each with its record', async () => {
  const paths = ['/', '/v1', '/admin', '/foo/chat/completions', '/api', '/index.html'];
  const before = gateway.records.length;
  for (const [i, path] of paths.entries()) {
    const response = await request(`${gateway.url}${path}`, { headers: { 'x-request-id': `outside-${i}` } });
    const body = (await response.body.json()) as { error: { message: string; type: string; code: string } };
    assert.equal(response.statusCode, 404, path);
    assert.equal(body.error.code, 'path_not_found', path);
    assert.match(body.error.message, /\/v1\/chat\/completions, \/v1\/completions/, path);
  }
  assert.equal(upstream.requests.length, 0, 'none reached the upstream');
  // One record per request, each rejected, for its own path and sent nowhere: not only the last one.
  const records = (await gateway.recordsAfter(before + paths.length)).slice(before);
  assert.equal(records.length, paths.length);
  for (const [i, path] of paths.entries()) {
    const record = records.find((r) => r.requestId === `outside-${i}`);
    assert.ok(record, `a record for ${path}`);
    assert.equal(record.outcome, 'rejected', path);
    assert.equal(record.status, 404, path);
    assert.equal(record.pathAsked, path, path);
    assert.equal(record.upstream, null, `${path}: no upstream`);
    assert.equal(record.pathSent, null, `${path}: nothing sent`);
  }
});
