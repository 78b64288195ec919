// Every answer that passes through the gateway, or that the gateway originates, carries
// `x-tokenmeter-gateway: <version>`, so the load generator can tell it talks to a gateway: streamed and JSON
// answers, upstream errors passed through, the gateway's own errors. An upstream that sends the header itself
// (another tokenmeter in front of it) does not decide this gateway's value.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { packageVersion } from '../../src/shared/package-version.js';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import { sendShortChatStream, startUpstream, type TestUpstream } from './helpers/upstream.js';

let upstream: TestUpstream;
let gateway: TestGateway;

before(async () => {
  upstream = await startUpstream((req, res) => {
    if (req.headers['x-scenario'] === 'error') {
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"slow down"}}');
    } else if (req.headers['x-scenario'] === 'json') {
      res.writeHead(200, { 'content-type': 'application/json', 'x-tokenmeter-gateway': 'upstream-copy' });
      res.end('{"choices":[]}');
    } else {
      sendShortChatStream(res);
    }
  });
  gateway = await startGateway({ upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }] });
});
after(async () => {
  await gateway.close();
  await upstream.close();
});

async function headerFor(path: string, scenario: string): Promise<{ status: number; value: unknown }> {
  const response = await request(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-scenario': scenario },
    body: '{"model":"m","stream":true}',
  });
  await response.body.text();
  return { status: response.statusCode, value: response.headers['x-tokenmeter-gateway'] };
}

test('streamed, JSON, upstream error and gateway error answers all carry the version header', async () => {
  const version = packageVersion();
  assert.match(version, /^\d+\.\d+\.\d+/);
  assert.deepEqual(await headerFor('/v1/chat/completions', 'stream'), { status: 200, value: version });
  assert.deepEqual(await headerFor('/v1/chat/completions', 'json'), { status: 200, value: version });
  assert.deepEqual(await headerFor('/v1/chat/completions', 'error'), { status: 429, value: version });
  assert.deepEqual(await headerFor('/nowhere', 'stream'), { status: 404, value: version });
});
