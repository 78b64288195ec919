// A bench run through the gateway to the simulator, all three exporting spans to a test OTLP receiver over real
// sockets: every request is one trace of three spans, the client's (root, kind CLIENT), the gateway's (kind
// SERVER, child of the client's) and the simulator's `llm_request` (kind SERVER, child of the gateway's), with
// the ids the records carry, the GenAI attributes, vLLM's attribute names with the simulator's ground truth, and
// spans nested in time.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BenchRunResult } from '../../loadgen/bench/aggregate.js';
import { runBench } from '../../loadgen/bench/run-bench.js';
import { benchSettingsFrom } from '../../src/cli/bench-settings.js';
import { DEFAULT_MODEL_NAME } from '../../src/sim/config.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.js';

const REQUESTS = 6;
const KIND_SERVER = 2; // OTLP's enum: SPAN_KIND_SERVER = 2, SPAN_KIND_CLIENT = 3
const KIND_CLIENT = 3;
/** JSON, so the receiver can read the spans; batches sent 20 ms after a span arrives. */
const EXPORT_ENV = {
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
  OTEL_BSP_SCHEDULE_DELAY: '20',
  OTEL_SEMCONV_STABILITY_OPT_IN: 'gen_ai_latest_experimental',
};

let receiver: OtlpReceiver;
let sim: RunningSimulator;
let gateway: TestGateway;
let result: BenchRunResult;

before(async () => {
  receiver = await startOtlpReceiver();
  sim = await startSimulator(
    {
      otlpTracesEndpoint: `${receiver.url}/v1/traces`,
      timing: { ttftMs: 30, itlMs: 2, jitter: 0, maxNumSeqs: 2 },
    },
    EXPORT_ENV,
  );
  gateway = await startGateway(
    { upstreams: [{ name: 'sim', baseUrl: `${sim.url}/v1`, keyless: true }], otlpEndpoint: receiver.url },
    EXPORT_ENV,
  );
  const settings = benchSettingsFrom(
    {
      'base-url': `${gateway.url}/v1`,
      'dataset-name': 'random',
      'random-input-len': 16,
      'random-output-len': 8,
      // Sent only when given, as vLLM's client: the spans then carry it.
      temperature: 0,
      'num-prompts': REQUESTS,
      'request-id-prefix': 'three-spans-',
      'otlp-endpoint': receiver.url,
      'no-records': true,
      'disable-tqdm': true,
    },
    [],
    EXPORT_ENV,
    'three-spans',
  );
  result = await runBench({
    settings,
    model: DEFAULT_MODEL_NAME,
    recordsPath: null,
    signal: new AbortController().signal,
    progressStream: { write: () => true, isTTY: false },
  });
  // The client's spans were flushed when the run ended; the gateway's and the simulator's go on their timers.
  await receiver.spansAfter(3 * REQUESTS);
});

after(async () => {
  await gateway.close();
  await sim.close();
  await receiver.close();
});

function only(spans: readonly ReceivedSpan[], service: string): ReceivedSpan {
  const found = spans.filter((s) => s.serviceName === service);
  assert.equal(found.length, 1, `one ${service} span`);
  return found[0] as ReceivedSpan;
}

test('every request is one trace of three spans, client -> gateway -> simulator, joined to the records', () => {
  assert.equal(result.records.length, REQUESTS);
  assert.deepEqual(result.spans, { exported: REQUESTS, dropped: 0, failed: 0 });
  assert.equal(receiver.spans.length, 3 * REQUESTS);
  for (const record of result.records) {
    assert.equal(record.outcome, 'ok');
    const trace = receiver.spans.filter((s) => s.traceId === record.traceId);
    assert.equal(trace.length, 3, `three spans in trace ${record.traceId}`);
    const client = only(trace, 'tokenmeter-bench');
    const server = only(trace, 'tokenmeter-gateway');
    const llm = only(trace, 'tokenmeter-sim');
    assert.equal(client.spanId, record.spanId);
    assert.equal(client.parentSpanId, '');
    assert.equal(client.kind, KIND_CLIENT);
    const gatewayRecord = gateway.records.find((r) => r.traceId === record.traceId);
    assert.ok(gatewayRecord);
    assert.equal(server.spanId, gatewayRecord.spanId);
    assert.equal(server.parentSpanId, client.spanId);
    assert.equal(server.kind, KIND_SERVER);
    const truth = sim.truth(gatewayRecord.requestId);
    assert.ok(truth?.trace);
    assert.equal(llm.spanId, truth.trace.spanId);
    assert.equal(llm.parentSpanId, server.spanId);
    assert.equal(llm.kind, KIND_SERVER);
    assert.equal(llm.name, 'llm_request');
    // Nested in time: each span starts after and ends before its parent (one clock, the wall-clock offset taken
    // once per process; all three processes here are one).
    assert.ok(client.startNs <= server.startNs && server.startNs <= llm.startNs);
    assert.ok(llm.endNs <= server.endNs && server.endNs <= client.endNs);
  }
});

test('client and gateway spans carry the GenAI attributes, TTFT, TTFB, overhead and a first-token event', () => {
  for (const span of receiver.spans.filter((s) => s.serviceName !== 'tokenmeter-sim')) {
    assert.equal(span.name, `chat ${DEFAULT_MODEL_NAME}`);
    const a = span.attributes;
    assert.equal(a['gen_ai.operation.name'], 'chat');
    assert.equal(a['gen_ai.provider.name'], 'openai');
    assert.equal(a['gen_ai.system'], undefined, 'the v1.36.0 name is not emitted once opted in');
    assert.equal(a['gen_ai.request.model'], DEFAULT_MODEL_NAME);
    assert.equal(a['gen_ai.usage.output_tokens'], 8);
    assert.equal(typeof a['gen_ai.usage.input_tokens'], 'number');
    assert.equal(a['server.address'], '127.0.0.1');
    assert.equal(typeof a['server.port'], 'number');
    assert.equal(a['gen_ai.request.stream'], true);
    assert.equal(typeof a['tokenmeter.ttft_ms'], 'number');
    assert.equal(typeof a['tokenmeter.ttfb_ms'], 'number');
    assert.equal(a['gen_ai.response.time_to_first_chunk'], (a['tokenmeter.ttft_ms'] as number) / 1000);
    assert.equal(a['error.type'], undefined);
    assert.deepEqual(
      span.events.map((e) => e.name),
      ['gen_ai.first_token'],
    );
    // The event is TTFT after the span's start, to the microsecond the conversion to nanoseconds keeps.
    const eventAfterMs = Number((span.events[0] as { timeNs: bigint }).timeNs - span.startNs) / 1e6;
    assert.ok(Math.abs(eventAfterMs - (a['tokenmeter.ttft_ms'] as number)) < 0.01);
  }
  for (const span of receiver.spans.filter((s) => s.serviceName === 'tokenmeter-gateway')) {
    assert.equal(typeof span.attributes['tokenmeter.gateway_overhead_ms'], 'number');
    assert.deepEqual(span.attributes['gen_ai.response.finish_reasons'], ['length']);
  }
});

test("the simulator's llm_request carries vLLM's names with its scheduler's ground truth, in seconds", () => {
  for (const span of receiver.spans.filter((s) => s.serviceName === 'tokenmeter-sim')) {
    const a = span.attributes;
    const truth = sim.truth(a['gen_ai.request.id'] as string);
    assert.ok(truth && truth.startedAtMs !== undefined && truth.endedAtMs !== undefined);
    const first = truth.contentChunkEmittedAtMs[0] as number;
    const last = truth.contentChunkEmittedAtMs.at(-1) as number;
    const close = (name: string, ms: number) =>
      assert.ok(Math.abs((a[name] as number) - ms / 1000) < 1e-9, `${name}: ${String(a[name])} vs ${ms} ms`);
    close('gen_ai.latency.time_in_queue', truth.startedAtMs - truth.receivedAtMs);
    close('gen_ai.latency.time_to_first_token', first - truth.receivedAtMs);
    close('gen_ai.latency.e2e', truth.endedAtMs - truth.receivedAtMs);
    close('gen_ai.latency.time_in_model_prefill', first - truth.startedAtMs);
    close('gen_ai.latency.time_in_model_decode', last - first);
    close('gen_ai.latency.time_in_model_inference', last - truth.startedAtMs);
    assert.equal(a['gen_ai.usage.prompt_tokens'], truth.promptTokens);
    assert.equal(a['gen_ai.usage.completion_tokens'], 8);
    assert.equal(a['gen_ai.response.model'], DEFAULT_MODEL_NAME);
    assert.equal(a['gen_ai.request.max_tokens'], 8);
    assert.equal(a['gen_ai.request.temperature'], 0);
  }
  // maxNumSeqs 2 and six requests sent at once: some waited for a seat, and the span says for how long.
  const queued = receiver.spans.filter(
    (s) =>
      s.serviceName === 'tokenmeter-sim' && (s.attributes['gen_ai.latency.time_in_queue'] as number) > 0.01,
  );
  assert.ok(queued.length > 0, 'some requests queued at the simulator');
});
