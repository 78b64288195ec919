// metrics.tokenEnv: /metrics answers only a scraper that sends the token as a bearer token (for deployments whose
// API port is public); without the setting it stays open, and the token never protects or blocks the API itself.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { sendStreamedChat, startGateway, type TestGateway } from './helpers/gateway.js';
import { sendShortChatStream, startUpstream, type TestUpstream } from './helpers/upstream.js';

let upstream: TestUpstream;
let gateway: TestGateway;

before(async () => {
  upstream = await startUpstream((_req, res) => sendShortChatStream(res));
  gateway = await startGateway(
    {
      upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }],
      metrics: { tokenEnv: 'METRICS_TOKEN' },
    },
    { METRICS_TOKEN: 'scrape-secret' },
  );
});
after(async () => {
  await gateway.close();
  await upstream.close();
});

async function scrape(url: string, authorization?: string): Promise<{ status: number; text: string }> {
  const response = await request(`${url}/metrics`, {
    headers: authorization === undefined ? {} : { authorization },
  });
  return { status: response.statusCode, text: await response.body.text() };
}

test('without the token, or with a wrong one, /metrics is 401 and shows nothing', async () => {
  for (const auth of [undefined, 'Bearer wrong', 'scrape-secret']) {
    const { status, text } = await scrape(gateway.url, auth);
    assert.equal(status, 401, String(auth));
    assert.doesNotMatch(text, /tokenmeter_/);
  }
});

test('with the token, /metrics answers; the API needs no metrics token', async () => {
  assert.equal((await sendStreamedChat(gateway.url)).status, 200);
  const { status, text } = await scrape(gateway.url, 'Bearer scrape-secret');
  assert.equal(status, 200);
  assert.match(text, /tokenmeter_requests_total/);
});

test('without metrics.tokenEnv /metrics is open; a tokenEnv naming an unset variable fails at start', async (t) => {
  const open = await startGateway({ upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }] });
  t.after(() => open.close());
  assert.equal((await scrape(open.url)).status, 200);
  await assert.rejects(
    startGateway({
      upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }],
      metrics: { tokenEnv: 'UNSET_TOKEN' },
    }),
    /metrics\.tokenEnv names UNSET_TOKEN, which is not set or empty/,
  );
});
