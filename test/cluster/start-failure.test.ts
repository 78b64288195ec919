// A gateway of workers that cannot start fails as a single gateway would: a port in use is the one-line message
// of `tokenmeter serve` and exit status 1, and nothing is left running.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.js';

test('a port in use fails the start of --workers 2 with the usual message and status 1', async (t) => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.after(() => taken.close());
  const { port } = taken.address() as AddressInfo;
  const result = await runCli([
    'serve',
    '--workers',
    '2',
    '--upstream',
    'http://127.0.0.1:9/v1',
    '--port',
    String(port),
    '--log-format',
    'json',
  ]);
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the port is already in use`),
  );
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  assert.match(result.stdout, /exited with code 1 before the gateway was up/);
});
