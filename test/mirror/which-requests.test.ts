// Which requests a mirror copies, and how: the bound on copies in flight is enforced and every request beyond it
// counted; tool-calling and side-effecting requests are copied only when the route opts in; a copy carries the
// client's body with the model mapped and the mirror upstream's own key, never the client's credentials; a
// mirror configured wrongly is refused at start, naming the field.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { validateConfig } from '../../src/gateway/config/config-validate.js';
import { mayHaveSideEffects } from '../../src/gateway/exchange/mirrors.js';
import { parseBodyBytes } from '../../src/gateway/request-path/request-body.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import type { TestUpstream } from '../gateway/helpers/upstream.js';
import {
  mirrorConfig,
  STREAMED_CHAT,
  startHoldingMirror,
  startPrimary,
  startSlowMirror,
} from './mirror-upstreams.js';

let primary: TestUpstream;

before(async () => {
  primary = await startPrimary();
});
after(async () => {
  await primary.close();
});

async function chat(gatewayUrl: string, body: string): Promise<number> {
  const response = await request(`${gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: 'Bearer client-secret',
      'x-api-key': 'client-x',
    },
    body,
  });
  await response.body.text();
  return response.statusCode;
}

async function metric(gateway: TestGateway, series: string): Promise<number> {
  const text = await (await request(`${gateway.url}/metrics`)).body.text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  assert.ok(line !== undefined, `${series} is exported`);
  return Number(line.slice(series.length + 1));
}

test('beyond maxConcurrent copies in flight, requests are not copied and each is counted as busy', async () => {
  const mirror = await startHoldingMirror();
  const gateway = await startGateway(
    mirrorConfig(primary.url, mirror.url, { fraction: 1, maxConcurrent: 2 }),
  );
  try {
    for (let i = 0; i < 5; i++) assert.equal(await chat(gateway.url, STREAMED_CHAT), 200);
    // Five primaries answered while the first two copies are held by the mirror.
    const primaries = await gateway.recordsAfter(5);
    assert.deepEqual(
      primaries.map((r) => r.role),
      ['primary', 'primary', 'primary', 'primary', 'primary'],
    );
    await mirror.holding(2);
    assert.equal(mirror.held(), 2);
    assert.equal(await metric(gateway, 'tokenmeter_mirror_requests_in_flight'), 2);
    assert.equal(await metric(gateway, 'tokenmeter_mirror_skipped_total{reason="busy"}'), 3);
    assert.deepEqual(
      primaries.map((r) => r.pairId !== null),
      [true, true, false, false, false],
      'only the copied requests are paired',
    );
    mirror.release();
    const all = await gateway.recordsAfter(7);
    const copies = all.filter((r) => r.role === 'mirror');
    assert.deepEqual(
      copies.map((r) => r.pairId).sort(),
      primaries
        .slice(0, 2)
        .map((r) => r.requestId)
        .sort(),
    );
    assert.ok(copies.every((r) => r.outcome === 'ok'));
    assert.equal(await metric(gateway, 'tokenmeter_mirror_requests_in_flight'), 0);
    // A copy's slot is free again once it ended.
    assert.equal(await chat(gateway.url, STREAMED_CHAT), 200);
    await mirror.holding(1);
    mirror.release();
    await gateway.recordsAfter(9);
  } finally {
    await gateway.close();
    await mirror.close();
  }
});

test('the copy carries the client body with the model mapped and the mirror key, never the client credentials', async () => {
  const mirror = await startSlowMirror();
  const gateway = await startGateway(mirrorConfig(primary.url, mirror.url, { fraction: 1 }));
  try {
    await chat(gateway.url, STREAMED_CHAT);
    const [p, m] = await gateway.recordsAfter(2);
    const copy = mirror.requests[0];
    assert.ok(copy !== undefined);
    assert.equal(copy.url, '/v1/chat/completions');
    assert.equal(copy.headers['authorization'], 'Bearer mirror-upstream-key');
    assert.equal(copy.headers['x-api-key'], undefined);
    assert.ok(!JSON.stringify(copy.headers).includes('client-secret'));
    assert.ok(!JSON.stringify(copy.headers).includes('client-x'));
    assert.equal(copy.headers['x-request-id'], m?.requestId);
    assert.match(String(copy.headers['traceparent']), new RegExp(`^00-${p?.traceId}-`));
    const sent = JSON.parse(copy.body.toString('utf8')) as Record<string, unknown>;
    const original = JSON.parse(STREAMED_CHAT) as Record<string, unknown>;
    assert.equal(sent['model'], 'copy-model');
    assert.deepEqual(sent['messages'], original['messages']);
    assert.deepEqual(sent['stream_options'], { include_usage: true }, 'usage asked for, as for the primary');
    assert.equal(
      primary.requests.at(-1)?.headers['authorization'],
      undefined,
      'the keyless primary gets no key',
    );
  } finally {
    await gateway.close();
    await mirror.close();
  }
});

const WITH_TOOLS = JSON.stringify({
  model: 'm',
  stream: true,
  messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
  tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } } }],
});

test('a tool-calling request is not copied unless the route says includeSideEffects', async () => {
  const mirror = await startSlowMirror();
  const refusing = await startGateway(mirrorConfig(primary.url, mirror.url, { fraction: 1 }));
  const opted = await startGateway(
    mirrorConfig(primary.url, mirror.url, { fraction: 1, includeSideEffects: true }),
  );
  try {
    assert.equal(await chat(refusing.url, WITH_TOOLS), 200);
    const [only] = await refusing.recordsAfter(1);
    assert.equal(only?.pairId, null);
    assert.equal(await metric(refusing, 'tokenmeter_mirror_skipped_total{reason="side_effects"}'), 1);
    assert.equal(mirror.requests.length, 0);
    assert.equal(await chat(opted.url, WITH_TOOLS), 200);
    const records = await opted.recordsAfter(2);
    assert.deepEqual(records.map((r) => r.role).sort(), ['mirror', 'primary']);
    assert.equal(mirror.requests.length, 1);
    assert.ok(mirror.requests[0]?.body.toString('utf8').includes('"tools"'));
  } finally {
    await refusing.close();
    await opted.close();
    await mirror.close();
  }
});

test('a fraction of 0 copies nothing and counts nothing', async () => {
  const mirror = await startSlowMirror();
  const gateway = await startGateway(mirrorConfig(primary.url, mirror.url, { fraction: 0 }));
  try {
    for (let i = 0; i < 3; i++) await chat(gateway.url, STREAMED_CHAT);
    const records = await gateway.recordsAfter(3);
    assert.ok(records.every((r) => r.role === 'primary' && r.pairId === null));
    assert.equal(mirror.requests.length, 0);
    assert.equal(await metric(gateway, 'tokenmeter_mirror_skipped_total{reason="busy"}'), 0);
  } finally {
    await gateway.close();
    await mirror.close();
  }
});

test('what counts as having side effects', () => {
  const chatBody = { model: 'm', messages: [] };
  /** Whether a POST of this JSON body to the endpoint may have side effects, read by the gateway's own reader. */
  const sideEffects = (endpoint: string, value: object, method = 'POST'): boolean =>
    mayHaveSideEffects(method, endpoint, parseBodyBytes(Buffer.from(JSON.stringify(value))).object);
  assert.equal(sideEffects('chat/completions', chatBody), false);
  assert.equal(sideEffects('completions', { model: 'm', prompt: 'x' }), false);
  assert.equal(sideEffects('messages', { model: 'm', messages: [], tools: [] }), false);
  assert.equal(sideEffects('messages', { model: 'm', messages: [], tools: null }), false);
  assert.equal(sideEffects('embeddings', { model: 'm', input: 'x' }), false);
  assert.equal(sideEffects('chat/completions', { ...chatBody, tools: [{}] }), true);
  assert.equal(sideEffects('chat/completions', { ...chatBody, functions: [{}] }), true);
  assert.equal(sideEffects('messages', { ...chatBody, tools: [{ type: 'web_search' }] }), true);
  assert.equal(sideEffects('responses', { model: 'm', input: 'x' }), true, 'stored by default');
  assert.equal(sideEffects('responses', { model: 'm', input: 'x', store: false }), false);
  assert.equal(sideEffects('files', { model: 'm' }), true);
  assert.equal(sideEffects('chat/completions', chatBody, 'DELETE'), true);
  assert.equal(mayHaveSideEffects('POST', 'chat/completions', undefined), true, 'a body that is not JSON');
});

function rejects(raw: unknown, pattern: RegExp): void {
  assert.throws(
    () => validateConfig(raw),
    (error: unknown) => error instanceof UserFacingError && pattern.test(error.message),
  );
}

test('a mirror configured wrongly is refused at start, naming the field', () => {
  const withMirror = (mirror: unknown) => ({
    upstreams: [
      { name: 'local', baseUrl: 'http://127.0.0.1:8000/v1', models: [{ alias: 'm', id: 'x', mirror }] },
      { name: 'hosted', baseUrl: 'https://example.com/v1' },
    ],
  });
  validateConfig(withMirror({ upstream: 'hosted', model: 'y', fraction: 0.5 }));
  rejects(
    withMirror({ upstream: 'hostd', model: 'y', fraction: 1 }),
    /models\[0\]\.mirror\.upstream .*did you mean 'hosted'/,
  );
  rejects(withMirror({ upstream: 'hosted', fraction: 1 }), /mirror\.model must be the model ID/);
  rejects(
    withMirror({ upstream: 'hosted', model: 'y', fraction: 1.5 }),
    /mirror\.fraction must be a number from 0 to 1/,
  );
  rejects(
    withMirror({ upstream: 'hosted', model: 'y', fraction: 1, maxConcurrent: 0 }),
    /maxConcurrent must be a positive whole number/,
  );
  rejects(
    withMirror({ upstream: 'hosted', model: 'y', fraction: 1, share: 1 }),
    /mirror\.share is not a known setting/,
  );
  rejects(withMirror('hosted'), /mirror must be an object/);
});
