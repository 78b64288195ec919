// Paths outside the API answer 404 in OpenAI's format; traversal (plain or percent-encoded) never reaches the
// upstream; absolute-form targets and the Host header never choose where a request goes.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import { rawRequest } from './helpers/raw-http.js';
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

test('paths outside the API answer 404 in OpenAI format listing what is accepted', async () => {
  for (const path of ['/', '/v1', '/admin', '/foo/chat/completions', '/api', '/index.html']) {
    const response = await request(`${gateway.url}${path}`);
    const body = (await response.body.json()) as { error: { message: string; type: string; code: string } };
    assert.equal(response.statusCode, 404, path);
    assert.equal(body.error.code, 'path_not_found', path);
    assert.match(body.error.message, /\/v1\/chat\/completions, \/v1\/completions/, path);
  }
  assert.equal(upstream.requests.length, 0);
  const record = gateway.records.at(-1);
  assert.equal(record?.outcome, 'rejected');
});

test('traversal, plain or encoded once, twice or with backslashes, is refused before any upstream', async () => {
  const targets = [
    '/v1/../admin',
    '/v1/chat/../../admin',
    '/v1/%2e%2e/admin',
    '/v1/%2E%2E/%2e%2e/admin',
    '/v1/models/..%2F..%2Fadmin',
    '/v1/%252e%252e/admin',
    '/v1/./chat/completions',
    '/v1/models/..%5c..%5cadmin',
    '/v1/models\\..\\admin',
  ];
  for (const target of targets) {
    const response = await rawRequest(gateway.url, `GET ${target} HTTP/1.1\r\nhost: 127.0.0.1`);
    assert.ok(response.status === 400 || response.status === 404, `${target}: ${response.status}`);
    assert.match(response.body, /"error"/, target);
  }
  assert.equal(upstream.requests.length, 0, 'nothing reached the upstream');
});

test('an absolute-form target and a foreign Host header still go to the configured upstream', async () => {
  const body = '{"model":"m"}';
  const absolute = await rawRequest(
    gateway.url,
    'POST http://evil.example:9999/v1/chat/completions HTTP/1.1\r\nhost: evil.example:9999\r\ncontent-type: application/json',
    body,
  );
  assert.equal(absolute.status, 200);
  assert.equal(upstream.requests.at(-1)?.url, '/api/v1/chat/completions');
  assert.equal(upstream.requests.at(-1)?.headers.host, `127.0.0.1:${upstream.port}`);
  const hosted = await rawRequest(
    gateway.url,
    'POST /v1/chat/completions HTTP/1.1\r\nhost: evil.example\r\ncontent-type: application/json',
    body,
  );
  assert.equal(hosted.status, 200);
  assert.equal(upstream.requests.at(-1)?.headers.host, `127.0.0.1:${upstream.port}`);
});
