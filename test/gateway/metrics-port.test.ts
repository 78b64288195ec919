// metrics.port: /metrics on a port of its own (for deployments whose API port is public), with the API port
// then serving no /metrics at all; the token still applies there; the port closes with the gateway; a port that
// cannot be bound fails the start; `tokenmeter serve --metrics-port` prints where it listens.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { withDeadline } from '../helpers/deadline.js';
import { CLI_PATH } from '../helpers/run-cli.js';
import { sendStreamedChat, startGateway, type TestGateway } from './helpers/gateway.js';
import { sendShortChatStream, startUpstream, type TestUpstream } from './helpers/upstream.js';

let upstream: TestUpstream;

before(async () => {
  upstream = await startUpstream((_req, res) => sendShortChatStream(res));
});
after(() => upstream.close());

function metricsUrl(gateway: TestGateway, path = '/metrics'): string {
  const address = gateway.context.state.metricsAddress;
  assert.ok(address !== null, 'the metrics port is listening');
  return `http://127.0.0.1:${address.port}${path}`;
}

async function get(url: string, authorization?: string): Promise<{ status: number; text: string }> {
  const response = await request(url, { headers: authorization === undefined ? {} : { authorization } });
  return { status: response.statusCode, text: await response.body.text() };
}

test('with metrics.port, /metrics answers there with the API traffic, and the API port has none', async (t) => {
  const gateway = await startGateway({
    upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }],
    metrics: { port: 0, host: '127.0.0.1' },
  });
  t.after(() => gateway.close());
  assert.notEqual(gateway.context.state.metricsAddress?.port, new URL(gateway.url).port);
  assert.equal((await sendStreamedChat(gateway.url)).status, 200);

  const scraped = await get(metricsUrl(gateway));
  assert.equal(scraped.status, 200);
  assert.match(scraped.text, /tokenmeter_requests_total\{[^}]*outcome="ok"[^}]*\} 1/);

  const onApiPort = await get(`${gateway.url}/metrics`);
  assert.equal(onApiPort.status, 404);
  assert.doesNotMatch(onApiPort.text, /tokenmeter_requests_total/);

  const elsewhere = await get(metricsUrl(gateway, '/v1/models'));
  assert.equal(elsewhere.status, 404);
  assert.match(elsewhere.text, /GET \/metrics only/);
});

test('the metrics token guards the metrics port too', async (t) => {
  const gateway = await startGateway(
    {
      upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }],
      metrics: { port: 0, tokenEnv: 'METRICS_TOKEN' },
    },
    { METRICS_TOKEN: 'scrape-secret' },
  );
  t.after(() => gateway.close());
  const refused = await get(metricsUrl(gateway), 'Bearer wrong');
  assert.equal(refused.status, 401);
  assert.doesNotMatch(refused.text, /tokenmeter_/);
  const allowed = await get(metricsUrl(gateway), 'Bearer scrape-secret');
  assert.equal(allowed.status, 200);
  assert.match(allowed.text, /tokenmeter_requests_in_flight/);
});

test('closing the gateway closes the metrics port, even with a scraper keeping its connection alive', async () => {
  const gateway = await startGateway({
    upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }],
    metrics: { port: 0 },
  });
  const url = metricsUrl(gateway);
  assert.equal((await get(url)).status, 200); // undici keeps this connection open
  await gateway.close();
  await assert.rejects(get(url), /ECONNREFUSED/);
});

test('a metrics port already in use fails the start, naming the address', async () => {
  const busyPort = Number(new URL(upstream.url).port);
  await assert.rejects(
    startGateway({
      upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }],
      metrics: { port: busyPort },
    }),
    (error: NodeJS.ErrnoException) => error.code === 'EADDRINUSE',
  );
});

test('bad metrics settings are refused at start, naming the field', async () => {
  const base = { upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }] };
  await assert.rejects(
    startGateway({ ...base, metrics: { port: 70000 } }),
    /config metrics\.port must be an integer/,
  );
  await assert.rejects(
    startGateway({ ...base, metrics: { host: '127.0.0.1' } }),
    /config metrics\.host needs metrics\.port/,
  );
});

test('tokenmeter serve --metrics-port prints the metrics address, which answers', async () => {
  const child = spawn(
    process.execPath,
    [
      CLI_PATH,
      'serve',
      '--upstream',
      upstream.url,
      '--port',
      '0',
      '--metrics-port',
      '0',
      '--log-level',
      'warn',
    ],
    { env: { PATH: process.env['PATH'] }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  let address: string | undefined;
  while (address === undefined) {
    await withDeadline(once(child.stdout, 'data'), () => `the gateway's address on stdout, got: ${out}`);
    address = /metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(out)?.[1];
  }
  const scraped = await get(address);
  assert.equal(scraped.status, 200);
  assert.match(scraped.text, /tokenmeter_/);
  child.kill('SIGTERM');
  const [code] = await withDeadline(once(child, 'exit'), () => 'the gateway process to exit');
  assert.equal(code, 0);
});
