// serve's flags laid over its config file, without the CLI (src/gateway/config/serve-config.ts): a flag typed
// wins, the file wins over a flag left at its default, --upstream replaces the file's upstreams, and the mistakes
// a user can make together are refused in one sentence.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_HOST, DEFAULT_PORT } from '../../src/gateway/config/config.js';
import { GATEWAY_KEYS_ENV, serveConfigFrom } from '../../src/gateway/config/serve-config.js';
import { UsageError } from '../../src/shared/user-facing-error.js';

const dir = mkdtempSync(join(tmpdir(), 'tokenmeter-serve-config-'));
const file = join(dir, 'tokenmeter.config.json');
writeFileSync(
  file,
  JSON.stringify({
    host: '0.0.0.0',
    port: 9000,
    records: { file: 'from-file.jsonl' },
    upstreams: [{ name: 'filed', baseUrl: 'http://127.0.0.1:8000/v1', keyless: true }],
  }),
);

test('the file stands where no flag was typed; a typed flag wins', async () => {
  const fromFile = await serveConfigFrom({ config: file }, {});
  assert.equal(fromFile.host, '0.0.0.0');
  assert.equal(fromFile.port, 9000);
  assert.equal(fromFile.records?.file, 'from-file.jsonl');
  assert.deepEqual(
    fromFile.upstreams.map((u) => u.name),
    ['filed'],
  );
  const typed = await serveConfigFrom(
    { config: file, port: 9100, records: 'typed.jsonl', recordGaps: true },
    {},
  );
  assert.equal(typed.host, '0.0.0.0');
  assert.equal(typed.port, 9100);
  assert.deepEqual(typed.records, { file: 'typed.jsonl', gaps: true });
});

test('--upstream alone: one keyless upstream at the default address; the keys variable when it is set', async () => {
  const config = await serveConfigFrom(
    { upstream: 'http://127.0.0.1:8000/v1' },
    { [GATEWAY_KEYS_ENV]: 'k1' },
  );
  assert.equal(config.host, DEFAULT_HOST);
  assert.equal(config.port, DEFAULT_PORT);
  assert.deepEqual(config.upstreams, [
    { name: 'upstream', baseUrl: 'http://127.0.0.1:8000/v1', keyless: true },
  ]);
  assert.equal(config.gatewayKeysEnv, GATEWAY_KEYS_ENV);
  const overFile = await serveConfigFrom(
    { config: file, upstream: 'http://10.0.0.2/v1', upstreamKeyEnv: 'K' },
    {},
  );
  assert.deepEqual(overFile.upstreams, [{ name: 'upstream', baseUrl: 'http://10.0.0.2/v1', keyEnv: 'K' }]);
});

test('any span receiver flag turns it on; the mistakes made together are refused', async () => {
  const on = await serveConfigFrom(
    { upstream: 'http://127.0.0.1:8000/v1', metricsPort: 0, spanReceiverWaitMs: 50 },
    {},
  );
  assert.deepEqual(on.spanReceiver, { waitMs: 50 });
  await assert.rejects(
    serveConfigFrom({}, {}),
    (e: unknown) => e instanceof UsageError && /give an upstream/.test(e.message),
  );
  await assert.rejects(
    serveConfigFrom({ upstream: 'http://127.0.0.1:8000/v1', metricsHost: '0.0.0.0' }, {}),
    (e: unknown) => e instanceof UsageError && /--metrics-host needs --metrics-port/.test(e.message),
  );
});
