// A stale HTTP_PROXY in the gateway's environment (the article's "works in curl, fails in the benchmark") does not
// reroute upstream traffic: the gateway dispatches on its own Agent per upstream, which reads no proxy variable.
// Each test file runs in a process of its own, so setting the variables here touches no other test.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import { sendShortChatStream, startUpstream, type TestUpstream } from './helpers/upstream.js';

/** Port 9 (discard) on loopback: nothing listens there, so a request sent through this "proxy" is refused. */
const DEAD_PROXY = 'http://127.0.0.1:9';
let upstream: TestUpstream;
let gateway: TestGateway;

before(async () => {
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy'])
    process.env[name] = DEAD_PROXY;
  upstream = await startUpstream((_req, res) => sendShortChatStream(res));
  gateway = await startGateway({ upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }] });
});
after(async () => {
  await gateway.close();
  await upstream.close();
});

test('proxy variables in the environment do not reroute upstream requests', async () => {
  const response = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"model":"m","stream":true}',
  });
  await response.body.text();
  assert.equal(response.statusCode, 200);
  assert.equal(upstream.requests.length, 1, 'the upstream itself was reached');
});
