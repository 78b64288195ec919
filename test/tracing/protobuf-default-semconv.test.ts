// Export with no protocol or opt-in set: OTLP/HTTP protobuf (the specification's default) and the GenAI
// conventions' v1.36.0 names (their stability note's default). The test receiver does not decode protobuf: it
// finds the span's ids and attribute names as bytes in the body, which is how protobuf writes them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { DEFAULT_MODEL_NAME } from '../../src/sim/config.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

let receiver: OtlpReceiver;
let sim: RunningSimulator;
let gateway: TestGateway;

before(async () => {
  receiver = await startOtlpReceiver();
  sim = await startSimulator({ timing: { ttftMs: 5, itlMs: 1, jitter: 0 } });
  gateway = await startGateway(
    { upstreams: [{ name: 'sim', baseUrl: `${sim.url}/v1`, keyless: true }], otlpEndpoint: receiver.url },
    { OTEL_BSP_SCHEDULE_DELAY: '10', OTEL_SERVICE_NAME: 'gateway-under-test' },
  );
});

after(async () => {
  await gateway.close();
  await sim.close();
  await receiver.close();
});

test('the default export is protobuf with the v1.36.0 GenAI names, carrying the record ids', async () => {
  const response = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: DEFAULT_MODEL_NAME,
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 3,
    }),
  });
  await response.body.text();
  const [record] = await gateway.recordsAfter(1);
  assert.ok(record);
  const [body] = await receiver.protobufAfter(1);
  assert.ok(body);
  assert.equal(receiver.contentTypes[0], 'application/x-protobuf');
  assert.ok(body.includes(Buffer.from(record.traceId, 'hex')), 'the trace id, as 16 bytes');
  assert.ok(body.includes(Buffer.from(record.spanId, 'hex')), 'the span id, as 8 bytes');
  assert.ok(body.includes('gateway-under-test'), 'OTEL_SERVICE_NAME');
  assert.ok(body.includes('gen_ai.system'));
  assert.ok(!body.includes('gen_ai.provider.name'));
  assert.ok(body.includes(`chat ${DEFAULT_MODEL_NAME}`));
});
