// Upstream TLS certificates are verified by default (an undici Agent built with rejectUnauthorized); a private CA can be trusted.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { fixture, fixturePath } from './helpers/fixtures.js';
import { startGateway } from './helpers/gateway.js';
import { startUpstream, type TestUpstream } from './helpers/upstream.js';

let upstream: TestUpstream;

before(async () => {
  upstream = await startUpstream(
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"object":"list","data":[]}');
    },
    { key: fixture('localhost.key'), cert: fixture('localhost.pem') },
  );
});

after(() => upstream.close());

test('an upstream whose certificate is signed by an unknown CA is refused with a 502 that says why', async (t) => {
  const gateway = await startGateway({ upstreams: [{ name: 'tls', baseUrl: upstream.url, keyless: true }] });
  t.after(() => gateway.close());
  const response = await request(`${gateway.url}/v1/models`);
  const body = (await response.body.json()) as { error: { message: string; code: string } };
  assert.equal(response.statusCode, 502);
  assert.equal(body.error.code, 'upstream_tls');
  assert.match(body.error.message, /TLS certificate could not be verified.*caFile/);
  assert.equal(upstream.requests.length, 0, 'no request reached the upstream');
  const [record] = await gateway.recordsAfter(1);
  assert.equal(record?.outcome, 'upstream_unreachable');
});

test('the same upstream is reached once its CA is configured', async (t) => {
  const gateway = await startGateway({
    upstreams: [{ name: 'tls', baseUrl: upstream.url, keyless: true, caFile: fixturePath('test-ca.pem') }],
  });
  t.after(() => gateway.close());
  const response = await request(`${gateway.url}/v1/models`);
  assert.equal(response.statusCode, 200);
  assert.deepEqual(await response.body.json(), { object: 'list', data: [] });
});
