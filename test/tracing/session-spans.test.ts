// The gateway's span of a request that is a turn of a session carries the session as the OpenTelemetry GenAI
// conventions name it, `gen_ai.conversation.id`, and its turn as `tokenmeter.session.turn` (docs/tracing.md);
// a request with no session carries neither.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { startToolUpstream } from '../gateway/helpers/tool-upstream.js';
import type { TestUpstream } from '../gateway/helpers/upstream.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

const EXPORT_ENV = { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '20' };
const SESSION = 'b1c2d3e4-0000-4000-8000-000000000001';

let receiver: OtlpReceiver;
let upstream: TestUpstream;
let gateway: TestGateway;

before(async () => {
  receiver = await startOtlpReceiver();
  upstream = await startToolUpstream();
  gateway = await startGateway(
    { upstreams: [{ name: 'tools', baseUrl: upstream.url, keyless: true }], otlpEndpoint: receiver.url },
    EXPORT_ENV,
  );
});
after(async () => {
  await gateway.close();
  await upstream.close();
  await receiver.close();
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<number> {
  const response = await request(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  await response.body.text();
  return response.statusCode;
}

test('a turn of a session: gen_ai.conversation.id and tokenmeter.session.turn on its span; none without a session', async () => {
  const body = { model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }], stream: true };
  for (let i = 0; i < 2; i++)
    assert.equal(await post('/v1/messages', body, { 'x-claude-code-session-id': SESSION }), 200);
  // Completions has no conversation: without an id it has no session (the scripted upstream answers it 404).
  await post('/v1/completions', { model: 'm', prompt: 'hi', max_tokens: 4 });
  const records = await gateway.recordsAfter(3);
  const spans = await receiver.spansAfter(3);
  const byRequest = (id: string) => spans.find((s) => s.attributes['tokenmeter.request_id'] === id);
  const turns = records.map((record) => {
    const span = byRequest(record.requestId);
    assert.ok(span, `a span for ${record.requestId}`);
    return [span.attributes['gen_ai.conversation.id'], span.attributes['tokenmeter.session.turn']];
  });
  assert.deepEqual(turns, [
    [SESSION, 0],
    [SESSION, 1],
    [undefined, undefined],
  ]);
});
