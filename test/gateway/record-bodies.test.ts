// records.bodies: off by default (bodies hold users' prompts); when on, each record carries the client's body as
// received (before model renaming or usage injection), capped at 256 KiB with a truncation flag, and never a
// header (no key can reach the records through this setting).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { MAX_RECORDED_BODY_BYTES } from '../../src/gateway/records/measurement.js';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import { sendShortChatStream, startUpstream, type TestUpstream } from './helpers/upstream.js';

const CLIENT_KEY = 'client-secret-key';
let upstream: TestUpstream;

before(async () => {
  upstream = await startUpstream((_req, res) => sendShortChatStream(res));
});
after(() => upstream.close());

async function send(gateway: TestGateway, body: string) {
  const count = gateway.records.length;
  const response = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${CLIENT_KEY}` },
    body,
  });
  await response.body.text();
  return (await gateway.recordsAfter(count + 1)).at(-1);
}

async function gatewayWith(t: { after: (fn: () => Promise<void>) => void }, bodies?: boolean) {
  const gateway = await startGateway(
    {
      upstreams: [{ name: 'u', baseUrl: upstream.url, keyEnv: 'UP_KEY' }],
      ...(bodies === undefined ? {} : { records: { bodies } }),
    },
    { UP_KEY: 'upstream-secret-key' },
  );
  t.after(() => gateway.close());
  return gateway;
}

test('off by default: records carry no body', async (t) => {
  const record = await send(await gatewayWith(t), '{"model":"m","stream":true,"messages":[]}');
  assert.ok(record);
  assert.equal('requestBody' in record, false);
  assert.equal('requestBodyTruncated' in record, false);
});

test("on: the client's body as received, untruncated, and no key anywhere in the record", async (t) => {
  const body = JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'héllo' }] });
  const record = await send(await gatewayWith(t, true), body);
  assert.equal(record?.requestBody, body, 'the client body, before the gateway added stream_options');
  assert.equal(record?.usageInjected, true);
  assert.equal(record?.requestBodyTruncated, false);
  assert.doesNotMatch(JSON.stringify(record), /secret-key/);
});

test('on: a body over 256 KiB is cut at the cap and flagged', async (t) => {
  const filler = 'x'.repeat(MAX_RECORDED_BODY_BYTES + 1000);
  const body = JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: filler }] });
  const record = await send(await gatewayWith(t, true), body);
  assert.equal(record?.requestBodyTruncated, true);
  assert.equal(record?.requestBody, body.slice(0, MAX_RECORDED_BODY_BYTES));
});
