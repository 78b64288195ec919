// `tokenmeter serve` as a user runs it: prints the address it listens on, proxies, exits 0 on SIGTERM; start-up
// mistakes exit 1 with a message naming the variable or field, never a stack trace.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { withDeadline } from '../helpers/deadline.js';
import { startUpstream, type TestUpstream } from './helpers/upstream.js';

const BIN = fileURLToPath(new URL('../../../bin/tokenmeter.js', import.meta.url));
let upstream: TestUpstream;
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tokenmeter-serve-'));
  upstream = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"object":"list","data":[]}');
  });
});
after(async () => {
  await upstream.close();
  await rm(dir, { recursive: true, force: true });
});

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    env: { PATH: process.env['PATH'], ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  return { child, out: () => stdout, err: () => stderr };
}

test('serves on the printed address and exits 0 on SIGTERM', async () => {
  const { child, out } = run(['--upstream', `${upstream.url}/v1`, '--port', '0', '--log-level', 'warn']);
  let address: string | undefined;
  while (address === undefined) {
    await withDeadline(once(child.stdout, 'data'), () => `the gateway's address on stdout, got: ${out()}`);
    address = /listening on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(out())?.[1];
  }
  const response = await request(`${address}/v1/models`);
  assert.equal(response.statusCode, 200);
  await response.body.dump();
  child.kill('SIGTERM');
  const [code] = await withDeadline(once(child, 'exit'), () => 'the gateway process to exit');
  assert.equal(code, 0);
});

test('an unset key variable exits 1 naming it', async () => {
  const { child, err } = run([
    '--upstream',
    upstream.url,
    '--upstream-key-env',
    'MY_UNSET_KEY',
    '--port',
    '0',
  ]);
  const [code] = await withDeadline(once(child, 'exit'), () => 'the gateway process to exit');
  assert.equal(code, 1);
  assert.match(err(), /MY_UNSET_KEY, which is not set/);
  assert.ok(!err().includes('    at '), 'no stack trace');
});

test('a config file with a bad field exits 1 pointing at it', async () => {
  const file = join(dir, 'tokenmeter.config.json');
  await writeFile(
    file,
    JSON.stringify({
      upstreams: [{ name: 'a', baseUrl: upstream.url, keyless: true, timeouts: { idleMs: 'soon' } }],
    }),
  );
  const { child, err } = run(['--config', file]);
  const [code] = await withDeadline(once(child, 'exit'), () => 'the gateway process to exit');
  assert.equal(code, 1);
  assert.match(err(), /upstreams\[0\]\.timeouts\.idleMs must be a positive number/);
});

test('no upstream at all is a usage error (exit 2)', async () => {
  const { child, err } = run([]);
  const [code] = await withDeadline(once(child, 'exit'), () => 'the gateway process to exit');
  assert.equal(code, 2);
  assert.match(err(), /--upstream URL/);
});

test('a port already in use exits 1 with one line saying so, never a stack trace', async () => {
  const busyPort = new URL(upstream.url).port;
  for (const flags of [
    ['--port', busyPort],
    ['--port', '0', '--metrics-port', busyPort],
  ]) {
    const { child, err } = run(['--upstream', upstream.url, ...flags, '--log-level', 'error']);
    const [code] = await withDeadline(once(child, 'exit'), () => 'the gateway process to exit');
    assert.equal(code, 1, flags.join(' '));
    assert.match(
      err(),
      new RegExp(`cannot listen on 127\\.0\\.0\\.1:${busyPort}: the port is already in use`),
    );
    assert.ok(!err().includes('    at '), 'no stack trace');
  }
});

test('--metrics-host without a metrics port is a usage error (exit 2)', async () => {
  const { child, err } = run(['--upstream', upstream.url, '--port', '0', '--metrics-host', '127.0.0.1']);
  const [code] = await withDeadline(once(child, 'exit'), () => 'the gateway process to exit');
  assert.equal(code, 2);
  assert.match(err(), /--metrics-host needs --metrics-port/);
});
