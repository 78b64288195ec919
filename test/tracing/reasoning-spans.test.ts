// A reasoning model's requests in the spans: a bench run through the gateway to the simulator in reasoning mode,
// client and gateway exporting to a test OTLP receiver. Each side's span carries its record's TTFO
// (`tokenmeter.ttfo_ms`) and reasoning tokens, and besides the first-token event a `tokenmeter.first_output_token`
// event at TTFO after the span's start; the simulator's ground truth says how many tokens were reasoning.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BenchRunResult } from '../../loadgen/bench/aggregate.js';
import { runBench } from '../../loadgen/bench/run-bench.js';
import { benchSettingsFrom } from '../../src/cli/bench-settings.js';
import { DEFAULT_MODEL_NAME } from '../../src/sim/config.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.js';

const REQUESTS = 4;
const REASONING_TOKENS = 5;
const EXPORT_ENV = { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '20' };

let receiver: OtlpReceiver;
let sim: RunningSimulator;
let gateway: TestGateway;
let result: BenchRunResult;

before(async () => {
  receiver = await startOtlpReceiver();
  sim = await startSimulator({
    timing: { ttftMs: 10, itlMs: 5, jitter: 0 },
    reasoning: { tokens: REASONING_TOKENS, chatField: 'reasoning' },
  });
  gateway = await startGateway(
    { upstreams: [{ name: 'sim', baseUrl: `${sim.url}/v1`, keyless: true }], otlpEndpoint: receiver.url },
    EXPORT_ENV,
  );
  const settings = benchSettingsFrom(
    {
      'base-url': `${gateway.url}/v1`,
      'dataset-name': 'random',
      'random-input-len': 16,
      'random-output-len': 10,
      'num-prompts': REQUESTS,
      'request-id-prefix': 'reasoning-spans-',
      'otlp-endpoint': receiver.url,
      'no-records': true,
      'disable-tqdm': true,
    },
    [],
    EXPORT_ENV,
    'reasoning-spans',
  );
  result = await runBench({
    settings,
    model: DEFAULT_MODEL_NAME,
    recordsPath: null,
    signal: new AbortController().signal,
    progressStream: { write: () => true, isTTY: false },
  });
  await receiver.spansAfter(2 * REQUESTS);
});

after(async () => {
  await gateway.close();
  await sim.close();
  await receiver.close();
});

/** The span's events as [name, ms after the span's start]. */
function eventTimes(span: ReceivedSpan): Array<[string, number]> {
  return span.events.map((e) => [e.name, Number(e.timeNs - span.startNs) / 1e6]);
}

function assertReasoningSpan(span: ReceivedSpan, ttftMs: number, ttfoMs: number, side: string): void {
  const a = span.attributes;
  assert.equal(a['tokenmeter.ttft_ms'], ttftMs, `${side} TTFT`);
  assert.equal(a['tokenmeter.ttfo_ms'], ttfoMs, `${side} TTFO`);
  assert.equal(a['tokenmeter.reasoning_tokens'], REASONING_TOKENS, `${side} reasoning tokens`);
  const events = eventTimes(span);
  assert.deepEqual(
    events.map(([name]) => name),
    ['gen_ai.first_token', 'tokenmeter.first_output_token'],
    side,
  );
  // At TTFT and TTFO after the span's start, to the microsecond the conversion to nanoseconds keeps.
  assert.ok(Math.abs((events[0]?.[1] ?? 0) - ttftMs) < 0.01, `${side} first token event`);
  assert.ok(Math.abs((events[1]?.[1] ?? 0) - ttfoMs) < 0.01, `${side} first output token event`);
}

test('client and gateway spans carry TTFO, reasoning tokens and a first-output-token event', () => {
  assert.deepEqual(result.spans, { exported: REQUESTS, dropped: 0, failed: 0 });
  assert.equal(result.records.length, REQUESTS);
  for (const record of result.records) {
    assert.equal(record.outcome, 'ok');
    const gatewayRecord = gateway.records.find((r) => r.traceId === record.traceId);
    assert.ok(gatewayRecord, `the gateway's record of trace ${record.traceId}`);
    assert.equal(sim.truth(gatewayRecord.requestId)?.reasoningTokens, REASONING_TOKENS);
    const trace = receiver.spans.filter((s) => s.traceId === record.traceId);
    const client = trace.find((s) => s.serviceName === 'tokenmeter-bench');
    const server = trace.find((s) => s.serviceName === 'tokenmeter-gateway');
    assert.ok(client && server, `both spans of trace ${record.traceId}`);
    assert.ok(
      record.ttftMs !== null && record.ttfoMs != null && record.ttfoMs > record.ttftMs,
      'the answer began after the first token',
    );
    assertReasoningSpan(client, record.ttftMs, record.ttfoMs, 'client');
    assert.ok(gatewayRecord.ttftMs !== null && gatewayRecord.ttfoMs != null);
    assertReasoningSpan(server, gatewayRecord.ttftMs, gatewayRecord.ttfoMs, 'gateway');
  }
});
