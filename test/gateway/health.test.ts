// /healthz answers while the process serves; /readyz checks that every upstream accepts a connection. Neither
// produces a record: probes are not traffic.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { request } from 'undici';
import { startGateway } from './helpers/gateway.js';
import { startUpstream } from './helpers/upstream.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('/readyz is 200 when every upstream is reachable and 503 naming the one that is not', async (t) => {
  const upstream = await startUpstream((_req, res) => res.end());
  t.after(() => upstream.close());
  const dead = await freePort();
  const gateway = await startGateway({
    upstreams: [
      { name: 'up', baseUrl: upstream.url, keyless: true, default: true },
      { name: 'down', baseUrl: `http://127.0.0.1:${dead}`, keyless: true },
    ],
  });
  t.after(() => gateway.close());
  const healthz = await request(`${gateway.url}/healthz`);
  assert.equal(healthz.statusCode, 200);
  assert.deepEqual(await healthz.body.json(), { status: 'ok' });
  const readyz = await request(`${gateway.url}/readyz`);
  assert.equal(readyz.statusCode, 503);
  assert.deepEqual(await readyz.body.json(), {
    status: 'upstream_unreachable',
    upstreams: [
      { name: 'up', reachable: true },
      { name: 'down', reachable: false },
    ],
  });
  const single = await startGateway({ upstreams: [{ name: 'up', baseUrl: upstream.url, keyless: true }] });
  t.after(() => single.close());
  const ready = await request(`${single.url}/readyz`);
  assert.equal(ready.statusCode, 200);
  await ready.body.dump();
  assert.equal(gateway.records.length + single.records.length, 0, 'probes are not recorded');
  assert.equal(upstream.requests.length, 0, 'readiness sends no request upstream');
});
