// Upstream keys are injected and client credentials removed; gateway keys (plain or hashed) are enforced with
// 401s that name the header to send; and no key ever appears in a log line or a record.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import { chatChunk, startUpstream, type TestUpstream } from './helpers/upstream.js';

const UPSTREAM_KEY = 'sk-upstream-SECRET-4f9a7c';
const GATEWAY_KEY = 'gw-plain-SECRET-81d2';
const HASHED_KEY = 'gw-hashed-SECRET-33aa';
const CLIENT_SENT = 'sk-client-SECRET-should-not-travel';

let upstream: TestUpstream;
let gateway: TestGateway;
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tokenmeter-auth-'));
  upstream = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`${chatChunk({ content: 'ok' })}${chatChunk({}, 'stop')}data: [DONE]\n\n`);
  });
  const hashed = `sha256:${createHash('sha256').update(HASHED_KEY).digest('hex')}`;
  gateway = await startGateway(
    {
      upstreams: [
        {
          name: 'hosted',
          baseUrl: `${upstream.url}/api`,
          keyEnv: 'TEST_UPSTREAM_KEY',
          headers: { 'X-Team': 'a' },
        },
      ],
      gatewayKeys: [GATEWAY_KEY, hashed],
      records: { file: join(dir, 'records.jsonl') },
    },
    { TEST_UPSTREAM_KEY: UPSTREAM_KEY },
  );
});
after(async () => {
  await upstream.close();
  await rm(dir, { recursive: true, force: true });
});

async function post(headers: Record<string, string>) {
  const response = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: '{"model":"m","stream":true}',
  });
  return { status: response.statusCode, text: await response.body.text() };
}

test('the upstream gets its own key and extra headers, never the client credentials', async () => {
  const ok = await post({
    authorization: `Bearer ${GATEWAY_KEY}`,
    'x-api-key': CLIENT_SENT,
    'api-key': CLIENT_SENT,
    'x-goog-api-key': CLIENT_SENT,
    cookie: `session=${CLIENT_SENT}`,
  });
  assert.equal(ok.status, 200);
  const seen = upstream.requests.at(-1);
  assert.equal(seen?.headers.authorization, `Bearer ${UPSTREAM_KEY}`);
  for (const name of ['x-api-key', 'api-key', 'x-goog-api-key', 'cookie'])
    assert.equal(seen?.headers[name], undefined, `${name} stays with the gateway`);
  assert.equal(seen?.headers['x-team'], 'a');
  assert.match(
    String(seen?.headers['x-request-id']),
    /^[0-9a-f-]{36}$/,
    'a request id is created and forwarded',
  );
  assert.equal(seen?.url, '/api/v1/chat/completions');
  const viaApiKey = await post({ 'x-api-key': HASHED_KEY });
  assert.equal(viaApiKey.status, 200, 'a hashed key presented as x-api-key is accepted');
});

test('missing or wrong gateway keys get a 401 in OpenAI format naming the header', async () => {
  const before = upstream.requests.length;
  const missing = await post({});
  assert.equal(missing.status, 401);
  const body = JSON.parse(missing.text) as { error: { message: string; type: string; code: string } };
  assert.equal(body.error.type, 'authentication_error');
  assert.equal(body.error.code, 'missing_gateway_key');
  assert.match(body.error.message, /Authorization: Bearer <key>.*x-api-key: <key>/);
  const wrong = await post({ authorization: `Bearer ${CLIENT_SENT}` });
  assert.equal(wrong.status, 401);
  assert.match(wrong.text, /invalid_gateway_key/);
  assert.equal(upstream.requests.length, before, 'rejected requests never reach the upstream');
  const health = await request(`${gateway.url}/healthz`);
  assert.equal(health.statusCode, 200, 'probes need no key');
  await health.body.dump();
});

test('no key appears in any log line or record', async () => {
  await gateway.close();
  const records = await readFile(join(dir, 'records.jsonl'), 'utf8');
  assert.equal(records.trim().split('\n').length, 4, 'one record per request, flushed on close');
  assert.ok(records.includes('"outcome":"rejected"'));
  const everything = `${gateway.logs.join('\n')}\n${records}`;
  for (const secret of [UPSTREAM_KEY, GATEWAY_KEY, HASHED_KEY, CLIENT_SENT, 'SECRET']) {
    assert.ok(!everything.includes(secret), `${secret} leaked`);
  }
  assert.ok(!/"(authorization|x-api-key)"\s*:/i.test(records), 'no header field in records');
});
