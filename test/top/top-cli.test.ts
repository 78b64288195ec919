// `tokenmeter top` as a user runs it: the real CLI against a real gateway, with --once or in a pipe, and the
// messages a user gets for a gateway that cannot be read.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { startGateway } from '../gateway/helpers/gateway.js';
import { sendShortChatStream, startUpstream } from '../gateway/helpers/upstream.js';
import { runCli } from '../helpers/run-cli.js';
import { sendSteadily } from './helpers/steady-traffic.js';

/** A loopback port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('--once: one frame with the traffic of its interval, and a sentence for the gateway that cannot be reached', async (t) => {
  const upstream = await startUpstream((_req, res) => sendShortChatStream(res));
  t.after(() => upstream.close());
  const gateway = await startGateway({
    upstreams: [{ name: 'local', baseUrl: upstream.url, keyless: true }],
  });
  t.after(() => gateway.close());
  const dead = await closedPort();

  // Requests keep arriving while top takes its two readings, one interval (1 s) apart.
  const traffic = sendSteadily(gateway.url, 'm1');
  const top = await runCli(['top', '--once', '--url', gateway.url, '--url', `http://127.0.0.1:${dead}`]);
  await traffic.stop();

  assert.equal(top.code, 0, top.stderr);
  const lines = top.stdout.trimEnd().split('\n');
  assert.match(lines[0] ?? '', /^tokenmeter top {2}\d\d:\d\d:\d\d UTC {2}window \d+\.\d s {2}sorted by rps$/);
  assert.match(lines[1] ?? '', new RegExp(`^gateway ${gateway.url}/metrics {2}\\d+ in flight$`));
  assert.equal(
    lines[2],
    `gateway http://127.0.0.1:${dead}/metrics  cannot reach it: connection refused (is the gateway running, and is this its metrics port?)`,
  );
  const header = lines.findIndex((line) => line.startsWith('UPSTREAM'));
  const row = lines.slice(header + 1).find((line) => line.startsWith('local'));
  assert.ok(row, top.stdout);
  const [, , rps, success] = row.split(/\s{2,}/);
  assert.ok(Number(rps) > 0, `requests/s ${rps}`);
  assert.equal(success, '100.0%');
});

test('--once with no gateway reachable exits 1; a URL that is not one exits 2 with one line', async () => {
  const dead = await closedPort();
  const unreachable = await runCli([
    'top',
    '--once',
    '--interval',
    '0.2',
    '--url',
    `ftp://127.0.0.1:${dead}`,
  ]);
  assert.equal(unreachable.code, 2, 'a URL that is not http(s) is a usage mistake');
  assert.equal(unreachable.stderr.trim().split('\n').length, 1, unreachable.stderr);
  assert.match(unreachable.stderr, /--url must be an http\(s\) URL/);
  // host:port alone means http://host:port/metrics, as --help says.
  const bare = await runCli(['top', '--once', '--interval', '0.2', '--url', `127.0.0.1:${dead}`]);
  assert.equal(bare.code, 1, bare.stderr);
  assert.match(
    bare.stdout,
    new RegExp(`^gateway http://127\\.0\\.0\\.1:${dead}/metrics  cannot reach it`, 'm'),
  );

  const down = await runCli(['top', '--once', '--interval', '0.2', '--url', `http://127.0.0.1:${dead}`]);
  assert.equal(down.code, 1);
  assert.match(down.stdout, /cannot reach it: connection refused/);
  assert.match(down.stdout, /waiting for a second reading/);

  const none = await runCli(['top', '--once']);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /give at least one --url/);
});

test('a gateway whose /metrics needs a token: top says so, and reads it with --metrics-token-env', async (t) => {
  const upstream = await startUpstream((_req, res) => sendShortChatStream(res));
  t.after(() => upstream.close());
  const gateway = await startGateway(
    {
      upstreams: [{ name: 'local', baseUrl: upstream.url, keyless: true }],
      metrics: { tokenEnv: 'SCRAPE_TOKEN' },
    },
    { SCRAPE_TOKEN: 'scrape-secret-1' },
  );
  t.after(() => gateway.close());
  const args = ['top', '--once', '--interval', '0.2', '--url', gateway.url];
  const refused = await runCli(args);
  assert.equal(refused.code, 1);
  assert.match(
    refused.stdout,
    /answered HTTP 401: this \/metrics requires a token \(give --metrics-token-env\)/,
  );

  const read = await runCli([...args, '--metrics-token-env', 'SCRAPE_TOKEN'], {
    ...process.env,
    SCRAPE_TOKEN: 'scrape-secret-1',
  });
  assert.equal(read.code, 0, read.stdout);
  assert.match(read.stdout, / in flight\n/);
  assert.ok(!read.stdout.includes('scrape-secret-1'), 'the token is never printed');
});
