// Every client base URL a user might configure, against every upstream base URL shape: the upstream always
// receives `<base path>/v1/chat/completions` exactly once (never /v1/v1), and each fix is counted and logged.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { DOUBLED_V1 } from '../../src/shared/upstream-hints.js';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import { startUpstream, type TestUpstream } from './helpers/upstream.js';

let upstream: TestUpstream;

before(async () => {
  upstream = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"choices":[]}');
  });
});
after(() => upstream.close());

const UPSTREAM_SHAPES: readonly [string, string][] = [
  ['', '/v1/chat/completions'],
  ['/', '/v1/chat/completions'],
  ['/v1', '/v1/chat/completions'],
  ['/v1/', '/v1/chat/completions'],
  ['/api', '/api/v1/chat/completions'],
  ['/api/', '/api/v1/chat/completions'],
  ['/api/v1', '/api/v1/chat/completions'],
  ['/api/v1/', '/api/v1/chat/completions'],
];

// Path a client sends for each base URL it may have been given, with the fixes the gateway should count.
const CLIENT_PATHS: readonly [string, readonly string[]][] = [
  ['/v1/chat/completions', []],
  ['/chat/completions', ['missing_v1']],
  ['/v1/v1/chat/completions', ['doubled_v1']],
  ['/v1//chat/completions', ['doubled_slash']],
  ['//v1/chat/completions', ['doubled_slash']],
  ['/v1/chat/completions/', ['trailing_slash']],
  ['/api/v1/chat/completions', ['api_prefix']],
  ['/api/chat/completions', ['api_prefix']],
  ['/api/v1/v1/chat/completions', ['api_prefix', 'doubled_v1']],
];

for (const [shape, expected] of UPSTREAM_SHAPES) {
  test(`upstream base '<origin>${shape}': every client path reaches ${expected} once`, async (t) => {
    const gateway: TestGateway = await startGateway({
      upstreams: [{ name: 'u', baseUrl: `${upstream.url}${shape}`, keyless: true }],
    });
    t.after(() => gateway.close());
    for (const [path, fixes] of CLIENT_PATHS) {
      const before = upstream.requests.length;
      const response = await request(`${gateway.url}${path}?x=1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"model":"m","messages":[]}',
      });
      await response.body.dump();
      assert.equal(response.statusCode, 200, path);
      assert.equal(upstream.requests.length, before + 1, path);
      assert.equal(upstream.requests.at(-1)?.url, `${expected}?x=1`, path);
      const record = (await gateway.recordsAfter(gateway.records.length)).at(-1);
      assert.deepEqual([...(record?.pathFixes ?? [])].sort(), [...fixes].sort(), path);
    }
    const metrics = await (await request(`${gateway.url}/metrics`)).body.text();
    assert.match(metrics, /tokenmeter_path_fixes_total\{fix="doubled_v1"\} 2/);
    const hints = gateway.logs.filter((l) => l.includes(DOUBLED_V1.what));
    assert.equal(hints.length, 2, 'logged once per distinct client pattern');
  });
}

test('an OpenAI SDK client works with the gateway as base URL, with or without /v1', async (t) => {
  const { default: OpenAI } = await import('openai');
  const gateway = await startGateway({ upstreams: [{ name: 'u', baseUrl: upstream.url, keyless: true }] });
  t.after(() => gateway.close());
  for (const base of [`${gateway.url}/v1`, gateway.url, `${gateway.url}/v1/`]) {
    const client = new OpenAI({ baseURL: base, apiKey: 'unused', maxRetries: 0 });
    const answer = await client.chat.completions.create({ model: 'm', messages: [] });
    assert.deepEqual(answer.choices, [], base);
    assert.equal(upstream.requests.at(-1)?.url, '/v1/chat/completions', base);
  }
});
