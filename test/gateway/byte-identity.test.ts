// Through the gateway, a client receives exactly the bytes a direct call would: streamed and plain responses,
// with the usage chunk the gateway asked for on its own removed again.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import { chatStreamSteps, playScript, startUpstream, type TestUpstream } from './helpers/upstream.js';

let upstream: TestUpstream;
let gateway: TestGateway;

before(async () => {
  upstream = await startUpstream((_req, res, body) => {
    const json = JSON.parse(body.toString('utf8')) as {
      stream?: boolean;
      stream_options?: { include_usage?: boolean };
    };
    if (json.stream) {
      // A stream split at odd places: the usage chunk (when asked for) shares a write with [DONE].
      playScript(res, chatStreamSteps(5, 5, 2, json.stream_options?.include_usage === true), []);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      '{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"héllo  wörld"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2}}',
    );
  });
  gateway = await startGateway({
    upstreams: [{ name: 'test', baseUrl: `${upstream.url}/v1`, keyless: true }],
  });
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

async function fetchBytes(base: string, body: unknown): Promise<{ status: number; bytes: Buffer }> {
  const response = await request(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, bytes: Buffer.from(await response.body.arrayBuffer()) };
}

test('a streamed answer is byte-identical to a direct call, the injected usage chunk removed', async () => {
  const body = { model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] };
  const direct = await fetchBytes(upstream.url, body);
  const proxied = await fetchBytes(gateway.url, body);
  assert.equal(proxied.status, 200);
  assert.deepEqual(proxied.bytes, direct.bytes);
  assert.ok(!proxied.bytes.toString().includes('"usage"'));
  const sent = JSON.parse(upstream.requests.at(-1)?.body.toString() ?? '{}') as { stream_options?: unknown };
  assert.deepEqual(sent.stream_options, { include_usage: true });
  const [record] = (await gateway.recordsAfter(1)).slice(-1);
  assert.equal(record?.outcome, 'ok');
  assert.equal(record?.usageInjected, true);
  assert.equal(record?.outputTokens, 5);
  assert.equal(record?.outputTokensSource, 'usage');
  assert.equal(record?.promptTokens, 7);
});

test('a client that asked for usage gets the usage chunk, unchanged', async () => {
  const body = { model: 'm', stream: true, stream_options: { include_usage: true }, messages: [] };
  const direct = await fetchBytes(upstream.url, body);
  const proxied = await fetchBytes(gateway.url, body);
  assert.deepEqual(proxied.bytes, direct.bytes);
  assert.ok(proxied.bytes.toString().includes('"usage"'));
});

test('a plain JSON answer is byte-identical, and its usage is recorded', async () => {
  const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
  const direct = await fetchBytes(upstream.url, body);
  const before = gateway.records.length;
  const proxied = await fetchBytes(gateway.url, body);
  assert.deepEqual(proxied.bytes, direct.bytes);
  const records = await gateway.recordsAfter(before + 1);
  const record = records.at(-1);
  assert.equal(record?.outcome, 'ok');
  assert.equal(record?.stream, false);
  assert.equal(record?.outputTokens, 2);
  assert.equal(record?.finishReason, 'stop');
});

test('the client x-request-id is kept: forwarded upstream, returned, recorded and logged', async () => {
  const before = gateway.records.length;
  const response = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': 'client-id-42' },
    body: '{"model":"m"}',
  });
  await response.body.dump();
  assert.equal(response.headers['x-request-id'], 'client-id-42');
  assert.equal(upstream.requests.at(-1)?.headers['x-request-id'], 'client-id-42');
  const record = (await gateway.recordsAfter(before + 1)).at(-1);
  assert.equal(record?.requestId, 'client-id-42');
  assert.ok(
    gateway.logs.some((l) => l.includes('"requestId":"client-id-42"') && l.includes('request finished')),
  );
});
