// A mirrored request exports two gateway spans in one trace: the primary's (SERVER, the client's child) and the
// copy's (CLIENT, the primary's child, `tokenmeter.role` mirror), each with its record's ids. Both upstreams are
// simulators tracing like vLLM, so each continues the span that called it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { DEFAULT_MODEL_NAME } from '../../src/sim/config.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

const ENV = { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '10' };
const KIND_SERVER = 2;
const KIND_CLIENT = 3;
const CLIENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_SPAN = 'b7ad6b7169203331';

let receiver: OtlpReceiver;
let primarySim: RunningSimulator;
let mirrorSim: RunningSimulator;
let gateway: TestGateway;

before(async () => {
  receiver = await startOtlpReceiver();
  const traced = {
    otlpTracesEndpoint: `${receiver.url}/v1/traces`,
    timing: { ttftMs: 5, itlMs: 1, jitter: 0 },
  };
  primarySim = await startSimulator(traced, ENV);
  mirrorSim = await startSimulator(traced, ENV);
  gateway = await startGateway(
    {
      upstreams: [
        {
          name: 'primary',
          baseUrl: `${primarySim.url}/v1`,
          keyless: true,
          models: [
            {
              alias: DEFAULT_MODEL_NAME,
              id: DEFAULT_MODEL_NAME,
              mirror: { upstream: 'copy', model: DEFAULT_MODEL_NAME, fraction: 1 },
            },
          ],
        },
        { name: 'copy', baseUrl: `${mirrorSim.url}/v1`, keyless: true },
      ],
      otlpEndpoint: receiver.url,
    },
    ENV,
  );
});

after(async () => {
  await gateway.close();
  await primarySim.close();
  await mirrorSim.close();
  await receiver.close();
});

test("a mirror's copy is a CLIENT span under the primary's, and its upstream continues it", async () => {
  const response = await request(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` },
    body: JSON.stringify({
      model: DEFAULT_MODEL_NAME,
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 3,
    }),
  });
  await response.body.text();
  const records = await gateway.recordsAfter(2);
  const spans = await receiver.spansAfter(4);
  assert.ok(spans.every((s) => s.traceId === CLIENT_TRACE));
  const primaryRecord = records.find((r) => r.role === 'primary');
  const mirrorRecord = records.find((r) => r.role === 'mirror');
  assert.ok(primaryRecord && mirrorRecord);
  const primary = spans.find((s) => s.spanId === primaryRecord.spanId);
  const copy = spans.find((s) => s.spanId === mirrorRecord.spanId);
  assert.equal(primary?.kind, KIND_SERVER);
  assert.equal(primary?.parentSpanId, CLIENT_SPAN);
  assert.equal(primary?.attributes['tokenmeter.role'], 'primary');
  assert.equal(copy?.kind, KIND_CLIENT);
  assert.equal(copy?.parentSpanId, primary?.spanId);
  assert.equal(copy?.attributes['tokenmeter.role'], 'mirror');
  const servers = spans
    .filter((s) => s.name === 'llm_request')
    .map((s) => s.parentSpanId)
    .sort();
  assert.deepEqual(servers, [primaryRecord.spanId, mirrorRecord.spanId].sort());
});
