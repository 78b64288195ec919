// Configuration is checked at start, with messages that name the bad field and say what to write instead.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { resolveConfig } from '../../src/gateway/config/config-resolve.js';
import { validateConfig } from '../../src/gateway/config/config-validate.js';
import { normalizeUpstreamBase } from '../../src/gateway/config/upstream-url.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';

function rejects(raw: unknown, pattern: RegExp): void {
  assert.throws(
    () => validateConfig(raw),
    (error: unknown) => {
      assert.ok(error instanceof UserFacingError);
      assert.match(error.message, pattern);
      return true;
    },
  );
}

test('bad fields are named, with a suggestion for misspelled settings', () => {
  rejects({}, /config upstreams must list at least one upstream/);
  rejects(
    { upstreams: [{ name: 'a', baseUrl: 'http://x' }], prot: 1 },
    /config prot is not a known setting \(did you mean 'port'\?\)/,
  );
  rejects(
    { upstreams: [{ name: 'a', baseUrl: 'http://x', keyenv: 'K' }] },
    /upstreams\[0\]\.keyenv .*did you mean 'keyEnv'/,
  );
  rejects(
    { upstreams: [{ name: 'a', baseUrl: 'http://x', timeouts: { idleMs: -1 } }] },
    /upstreams\[0\]\.timeouts\.idleMs must be a positive number/,
  );
  rejects(
    {
      upstreams: [
        { name: 'a', baseUrl: 'http://x' },
        { name: 'a', baseUrl: 'http://y' },
      ],
    },
    /upstreams\[1\]\.name repeats 'a'/,
  );
  rejects(
    { upstreams: [{ name: 'a', baseUrl: 'http://x', models: [{ alias: 'x' }] }] },
    /upstreams\[0\]\.models\[0\] must be a model name or/,
  );
  rejects(
    { upstreams: [{ name: 'a', baseUrl: 'http://x' }], port: 70000 },
    /config port must be an integer from 0 to 65535/,
  );
});

test('a key variable that is unset or empty is a start-up error naming it; keyless is a warning', async () => {
  const config = validateConfig({
    upstreams: [{ name: 'hosted', baseUrl: 'https://taotoken.net/api', keyEnv: 'TAOTOKEN_API_KEY' }],
  });
  await assert.rejects(
    resolveConfig(config, {}),
    /environment variable TAOTOKEN_API_KEY, which is not set: export TAOTOKEN_API_KEY=<key>/,
  );
  await assert.rejects(resolveConfig(config, { TAOTOKEN_API_KEY: '  ' }), /TAOTOKEN_API_KEY, which is empty/);
  const resolved = await resolveConfig(config, { TAOTOKEN_API_KEY: 'k' });
  assert.equal(resolved.upstreams[0]?.key, 'k');
  const keyless = await resolveConfig(
    validateConfig({ upstreams: [{ name: 'local', baseUrl: 'http://127.0.0.1:8000', keyless: true }] }),
    {},
  );
  assert.match(keyless.warnings[0] ?? '', /'local' is declared keyless/);
  await assert.rejects(
    resolveConfig(validateConfig({ upstreams: [{ name: 'x', baseUrl: 'http://127.0.0.1:8000' }] }), {}),
    /has no key: set keyEnv .* or "keyless": true/,
  );
});

test('every base URL shape normalizes to one API prefix: /v1 exactly once', () => {
  const cases: [string, string, string][] = [
    ['https://taotoken.net/api', 'https://taotoken.net', '/api/v1'],
    ['https://taotoken.net/api/', 'https://taotoken.net', '/api/v1'],
    ['https://taotoken.net/api/v1', 'https://taotoken.net', '/api/v1'],
    ['http://127.0.0.1:8000', 'http://127.0.0.1:8000', '/v1'],
    ['http://127.0.0.1:8000/', 'http://127.0.0.1:8000', '/v1'],
    ['http://127.0.0.1:8000/v1', 'http://127.0.0.1:8000', '/v1'],
    ['http://127.0.0.1:8000/v1/', 'http://127.0.0.1:8000', '/v1'],
    ['http://127.0.0.1:8000/v1/v1', 'http://127.0.0.1:8000', '/v1'],
    ['http://127.0.0.1:8000/v1/chat/completions', 'http://127.0.0.1:8000', '/v1'],
  ];
  for (const [raw, origin, prefix] of cases) {
    const base = normalizeUpstreamBase(raw, 'baseUrl');
    assert.equal(base.origin, origin, raw);
    assert.equal(base.apiPrefix, prefix, raw);
  }
  assert.throws(
    () => normalizeUpstreamBase('127.0.0.1:8000', 'upstreams[0].baseUrl'),
    /upstreams\[0\]\.baseUrl: '127\.0\.0\.1:8000' is not a URL; write it like http:/,
  );
  assert.throws(() => normalizeUpstreamBase('http://u:p@x/v1', 'baseUrl'), /credentials/);
});

test('a key file is read (whitespace trimmed); an empty or missing one is an error naming the field', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tokenmeter-keyfile-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'key');
  await writeFile(file, 'sk-from-file\n');
  const config = (keyFile: string) =>
    validateConfig({ upstreams: [{ name: 'h', baseUrl: 'http://x', keyFile }] });
  assert.equal((await resolveConfig(config(file), {})).upstreams[0]?.key, 'sk-from-file');
  await writeFile(file, '  \n');
  await assert.rejects(resolveConfig(config(file), {}), /upstreams\[0\]\.keyFile: '.*' is empty/);
  await assert.rejects(
    resolveConfig(config(join(dir, 'missing')), {}),
    /upstreams\[0\]\.keyFile: cannot read .* \(ENOENT\)/,
  );
});

test('the span receiver on a metrics port other hosts reach, with no metrics token, draws a start-up warning', async () => {
  const upstreams = [{ name: 'local', baseUrl: 'http://127.0.0.1:8000', keyless: true }];
  const warningsOf = async (extra: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
    (await resolveConfig(validateConfig({ upstreams, spanReceiver: {}, ...extra }), env)).warnings.filter(
      (w) => w.includes('span receiver'),
    );
  // The metrics port listens where the API port does unless metrics.host says otherwise.
  const resolved = await resolveConfig(
    validateConfig({ upstreams, host: '0.0.0.0', metrics: { port: 9464 } }),
    {},
  );
  assert.deepEqual(resolved.metricsListen, { host: '0.0.0.0', port: 9464 });
  const [exposed, ...more] = await warningsOf({ host: '0.0.0.0', metrics: { port: 9464 } });
  assert.match(exposed ?? '', /span receiver listens on 0\.0\.0\.0 .* no metrics\.tokenEnv/);
  assert.deepEqual(more, []);
  assert.equal((await warningsOf({ metrics: { port: 9464, host: '10.0.0.5' } })).length, 1);
  // Loopback (the default host), or a token: nothing to say.
  assert.deepEqual(await warningsOf({ metrics: { port: 9464 } }), []);
  assert.deepEqual(await warningsOf({ host: '0.0.0.0', metrics: { port: 9464, host: '::1' } }), []);
  assert.deepEqual(
    await warningsOf(
      { host: '0.0.0.0', metrics: { port: 9464, tokenEnv: 'METRICS_TOKEN' } },
      {
        METRICS_TOKEN: 'a-long-enough-token',
      },
    ),
    [],
  );
});
