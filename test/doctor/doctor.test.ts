// One test per failure mode of the article's troubleshooting list, each against a simulator set up to fail that
// way, asserting the fix the doctor prints.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import type { CheckResult } from '../../src/doctor/check.js';
import { type DoctorOptions, runDoctor } from '../../src/doctor/run-doctor.js';
import { BEARER_AUTH } from '../../src/protocols/index.js';
import { type SimOptions, startSimulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/run-cli.js';

const fast = { ttftMs: 2, itlMs: 1, jitter: 0 };

async function doctor(sim: SimOptions, options: Partial<DoctorOptions> & { path?: string } = {}) {
  const server = await startSimulator({ timing: fast, ...sim });
  try {
    const results = await runDoctor({
      baseUrl: `${server.url}${options.path ?? ''}`,
      apiKey: undefined,
      apiKeyEnv: undefined,
      model: undefined,
      backend: 'openai-chat',
      timeoutMs: 5000,
      env: {},
      ...options,
    });
    return (id: string): CheckResult => {
      const found = results.find((r) => r.id === id);
      assert.ok(found, `check ${id} ran: ${JSON.stringify(results)}`);
      return found;
    };
  } finally {
    await server.close();
  }
}

test('all good: every check passes', async () => {
  const result = await doctor({}, {});
  for (const id of ['base-url', 'proxy', 'auth', 'model', 'endpoints', 'backend', 'stream', 'timing']) {
    assert.equal(result(id).status, 'pass', id);
  }
  assert.match(result('timing').detail, /TTFT \d+ ms, 32 tokens/);
});

test('key variable unset, "None", quoted or padded: named, with the export to run', async () => {
  const unset = await doctor({ apiKey: 'k' }, { apiKeyEnv: 'TAOTOKEN_API_KEY' });
  assert.equal(unset('key').status, 'fail');
  assert.match(unset('key').detail, /TAOTOKEN_API_KEY is not set/);
  assert.match(unset('key').fix ?? '', /export TAOTOKEN_API_KEY=/);
  for (const [value, problem] of [
    ['None', /placeholder "None"/],
    ['"sk-abc"', /wrapped in quotes/],
    [' sk-abc', /whitespace/],
    ['', /is empty/],
  ] as const) {
    const r = await doctor({ apiKey: 'k' }, { apiKeyEnv: 'K', env: { K: value } });
    assert.equal(r('key').status, 'fail');
    assert.match(r('key').detail, problem);
  }
});

test('wrong key: 401 explained, naming the variable to check', async () => {
  const r = await doctor({ apiKey: 'right' }, { apiKeyEnv: 'K', env: { K: 'wrong' } });
  assert.equal(r('auth').status, 'fail');
  assert.match(r('auth').detail, /401/);
  assert.match(r('auth').fix ?? '', /refused the key that was sent: check that K holds the key/);
  assert.equal(r('stream').status, 'skip');
});

test('401: a key typed with --api-key is "sent and refused"; an unset variable is "none was sent"', async () => {
  const typed = await doctor({ apiKey: 'right' }, { apiKey: 'wrong' });
  assert.match(typed('auth').fix ?? '', /refused the key that was sent: check that --api-key holds/);
  const unset = await doctor({ apiKey: 'right' }, { apiKeyEnv: 'NOPE_KEY' });
  assert.match(unset('key').detail, /NOPE_KEY is not set/);
  assert.match(unset('auth').fix ?? '', /wants a key and none was sent/);
  assert.doesNotMatch(
    unset('auth').fix ?? '',
    /NOPE_KEY/,
    'an unset variable is not blamed for a refused key',
  );
});

test('base URL ending in /v1: warned about /v1/v1, with the URL to use', async () => {
  const r = await doctor({}, { path: '/v1' });
  assert.equal(r('base-url').status, 'warn');
  assert.match(r('base-url').detail, /\/v1\/v1/);
  assert.match(r('base-url').fix ?? '', /give those clients http:\/\/127\.0\.0\.1:\d+;/);
  assert.equal(r('stream').status, 'pass', 'the doctor itself still reaches the API');
});

test('a stale proxy variable pointing at a dead local proxy fails; NO_PROXY exempts', async () => {
  const dead = createServer();
  await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
  const { port } = dead.address() as { port: number };
  await new Promise<void>((resolve) => dead.close(() => resolve()));
  const proxied = await doctor({}, { env: { HTTP_PROXY: `http://127.0.0.1:${port}` } });
  assert.equal(proxied('proxy').status, 'fail');
  assert.match(proxied('proxy').detail, /local proxy failed/);
  assert.match(proxied('proxy').fix ?? '', /unset HTTP_PROXY or add 127\.0\.0\.1 to NO_PROXY/);
  const exempt = await doctor(
    {},
    { env: { http_proxy: `http://127.0.0.1:${port}`, NO_PROXY: 'localhost,127.0.0.1' } },
  );
  assert.equal(exempt('proxy').status, 'pass');
});

test('model given as a local weights path: named as such, with the served IDs', async () => {
  const r = await doctor(
    { servedModelNames: ['Qwen2.5-Coder-32B-Instruct-GPTQ-Int8'] },
    { model: '/root/models/Qwen2.5-Coder-32B-Instruct-GPTQ-Int8' },
  );
  assert.equal(r('model').status, 'fail');
  assert.match(r('model').detail, /local weights path, not a model ID/);
  assert.equal(
    r('model').fix,
    "the model '/root/models/Qwen2.5-Coder-32B-Instruct-GPTQ-Int8' is a local weights path: send the model ID the server registered (benchmark: --model Qwen2.5-Coder-32B-Instruct-GPTQ-Int8)",
  );
});

test('unknown model: the nearest served IDs', async () => {
  const r = await doctor(
    { servedModelNames: ['qwen2.5-7b-instruct', 'llama-3.1-8b'] },
    { model: 'qwen2.5-7b' },
  );
  assert.equal(r('model').status, 'fail');
  assert.match(r('model').detail, /'qwen2\.5-7b' is not served; served: 'qwen2\.5-7b-instruct'/);
});

test('completions backend against a chat-only endpoint (the NOT FOUND / 422 case): use openai-chat', async () => {
  const r = await doctor({ chatOnly: true }, { backend: 'openai' });
  assert.equal(r('endpoints').detail, '/v1/chat/completions: 200, /v1/completions: 404');
  assert.equal(r('backend').status, 'fail');
  assert.equal(r('backend').fix, 'use --backend openai-chat --endpoint /v1/chat/completions');
});

test('HTTP 200 carrying an error instead of choices: caught and shown', async () => {
  const server = await startSimulator({ timing: fast });
  const faulty = await startSimulator({ timing: fast, faults: { errorBodyRate: 1 } });
  try {
    // The probes of the earlier steps would hit the fault too; point the stream check at the faulty one.
    const { checkStream } = await import('../../src/doctor/stream-check.js');
    const { normalizeUpstreamBase } = await import('../../src/gateway/config/upstream-url.js');
    const [verdict] = await checkStream(
      {
        base: normalizeUpstreamBase(faulty.url, 'test'),
        headers: {},
        auth: BEARER_AUTH,
        timeoutMs: 5000,
        keySource: undefined,
      },
      'tokenmeter/sim-7b',
      'openai-chat',
    );
    assert.equal(verdict?.status, 'fail');
    assert.match(
      verdict?.detail ?? '',
      /HTTP 200, but the stream carries an error instead of choices: "The upstream provider/,
    );
    assert.match(verdict?.fix ?? '', /reading choices/);
  } finally {
    await Promise.all([server.close(), faulty.close()]);
  }
});

test('a stream cut before the end: no finish, no [DONE]', async () => {
  const r = await doctor({ faults: { cutAfterTokens: 5 } });
  assert.equal(r('stream').status, 'fail');
  assert.match(r('stream').detail, /the stream broke after 5 chunk\(s\)/);
});

test('nothing listening: refused, "is the server running"', async () => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const results = await runDoctor({
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: undefined,
    apiKeyEnv: undefined,
    model: undefined,
    backend: 'openai-chat',
    timeoutMs: 2000,
    env: {},
  });
  const auth = results.find((r) => r.id === 'auth');
  assert.equal(auth?.status, 'fail');
  assert.match(auth?.detail ?? '', /refused the connection/);
  assert.match(auth?.fix ?? '', /is the server running/);
});

test('CLI: exit 1 with the checklist on failure, 0 and --json when healthy', async () => {
  const sim = await startSimulator({ timing: fast, apiKey: 'secret-key-123' });
  try {
    const bad = await runCli(['doctor', '--base-url', sim.url, '--api-key-env', 'DOCTOR_TEST_KEY'], {
      ...process.env,
      DOCTOR_TEST_KEY: 'nope',
    });
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /\[FAIL\] reachable and authorized/);
    assert.match(bad.stdout, /fix: the upstream refused the key that was sent/);
    const good = await runCli(
      ['doctor', '--base-url', sim.url, '--api-key-env', 'DOCTOR_TEST_KEY', '--json'],
      {
        ...process.env,
        DOCTOR_TEST_KEY: 'secret-key-123',
      },
    );
    assert.equal(good.code, 0, good.stdout + good.stderr);
    const parsed = JSON.parse(good.stdout) as { ok: boolean; checks: CheckResult[] };
    assert.equal(parsed.ok, true);
    assert.ok(!good.stdout.includes('secret-key-123'), 'the key is never printed');
  } finally {
    await sim.close();
  }
});
