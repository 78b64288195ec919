// Hop-by-hop headers stay on their own hop, both ways: the fixed ones (keep-alive, te, ...) and any header a
// sender names in its Connection header. End-to-end headers pass.
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import { rawRequest } from './helpers/raw-http.js';
import { startUpstream, type TestUpstream } from './helpers/upstream.js';

let upstream: TestUpstream;
let gateway: TestGateway;
let seenUpstream: IncomingHttpHeaders = {};

before(async () => {
  upstream = await startUpstream((req, res) => {
    seenUpstream = req.headers;
    res.setHeader('connection', 'keep-alive, X-Upstream-Hop');
    res.setHeader('keep-alive', 'timeout=5');
    res.setHeader('x-upstream-hop', 'upstream connection detail');
    res.setHeader('x-upstream-end-to-end', 'kept');
    res.setHeader('content-type', 'application/json');
    res.end('{"object":"list","data":[]}');
  });
  gateway = await startGateway({ upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }] });
});
after(async () => {
  await gateway.close();
  await upstream.close();
});

test('headers the upstream names in Connection do not reach the client; end-to-end ones do', async () => {
  const response = await request(`${gateway.url}/v1/models`);
  await response.body.dump();
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['x-upstream-hop'], undefined);
  assert.equal(
    response.headers['keep-alive'] === 'timeout=5',
    false,
    'the upstream keep-alive is not forwarded',
  );
  assert.equal(response.headers['x-upstream-end-to-end'], 'kept');
});

test('headers the client names in Connection do not reach the upstream; end-to-end ones do', async () => {
  // A raw request: HTTP clients manage the Connection header themselves and would not send this one.
  const response = await rawRequest(
    gateway.url,
    'GET /v1/models HTTP/1.1\r\nhost: gateway\r\nconnection: x-client-hop\r\nx-client-hop: client connection detail\r\nx-trace: kept',
  );
  assert.equal(response.status, 200);
  assert.equal(seenUpstream['x-client-hop'], undefined);
  assert.equal(seenUpstream['x-trace'], 'kept');
});
