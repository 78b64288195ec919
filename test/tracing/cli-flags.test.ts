// The tracing flags through the real executable: `sim --otlp-traces-endpoint`, `serve --otlp-endpoint` and
// `bench --otlp-endpoint` export to a test OTLP receiver (one request's trace of three spans, and bench's line
// counting its spans), and an endpoint that cannot work is a usage error (exit 2) naming the setting.
import assert from 'node:assert/strict';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { after, before, test } from 'node:test';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { runCli, startCli, stopCli } from '../helpers/run-cli.js';

const ENV = {
  ...process.env,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
  OTEL_BSP_SCHEDULE_DELAY: '10',
};
const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

let receiver: OtlpReceiver;
let sim: ChildProcessWithoutNullStreams;
let serve: ChildProcessWithoutNullStreams;
let gatewayUrl: string;

before(async () => {
  receiver = await startOtlpReceiver();
  const simStarted = await startCli(
    [
      'sim',
      '--port',
      '0',
      '--ttft-ms',
      '5',
      '--itl-ms',
      '1',
      '--otlp-traces-endpoint',
      `${receiver.url}/v1/traces`,
    ],
    /listening on (http:\/\/\S+)/,
    ENV,
  );
  sim = simStarted.child;
  const serveStarted = await startCli(
    ['serve', '--upstream', `${simStarted.match[1]}/v1`, '--port', '0', '--otlp-endpoint', receiver.url],
    /listening on (http:\/\/[^\s/]+:\d+)\/v1/,
    ENV,
  );
  serve = serveStarted.child;
  gatewayUrl = serveStarted.match[1] as string;
  assert.match(serveStarted.output(), /; spans to http:\/\/127\.0\.0\.1:\d+\/v1\/traces/);
});

after(async () => {
  await stopCli(serve);
  await stopCli(sim);
  await receiver.close();
});

test('bench -> serve -> sim, each exporting with its flag: three spans per request, one trace', async () => {
  const result = await runCli(
    [
      'bench',
      '--base-url',
      `${gatewayUrl}/v1`,
      '--model',
      'tokenmeter/sim-7b',
      '--dataset-name',
      'random',
      '--random-input-len',
      '8',
      '--random-output-len',
      '4',
      '--num-prompts',
      '2',
      '--no-records',
      '--disable-tqdm',
      '--otlp-endpoint',
      receiver.url,
    ],
    ENV,
  );
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /Spans: 2 exported to http:\/\/127\.0\.0\.1:\d+\/v1\/traces, 0 dropped/);
  const spans = await receiver.spansAfter(6);
  const traces = new Set(spans.map((s) => s.traceId));
  assert.equal(traces.size, 2);
  for (const traceId of traces) {
    const services = spans
      .filter((s) => s.traceId === traceId)
      .map((s) => s.serviceName)
      .sort();
    assert.deepEqual(services, ['tokenmeter-bench', 'tokenmeter-gateway', 'tokenmeter-sim']);
  }
});

test("a caller's traceparent is continued by serve and sim alike", async () => {
  const before = receiver.spans.length;
  const response = await fetch(`${gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', traceparent: `00-${CLIENT_TRACE}-00f067aa0ba902b7-01` },
    body: JSON.stringify({
      model: 'tokenmeter/sim-7b',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 2,
    }),
  });
  await response.text();
  const spans = (await receiver.spansAfter(before + 2)).filter((s) => s.traceId === CLIENT_TRACE);
  const gateway = spans.find((s) => s.serviceName === 'tokenmeter-gateway');
  const server = spans.find((s) => s.serviceName === 'tokenmeter-sim');
  assert.equal(gateway?.parentSpanId, '00f067aa0ba902b7');
  assert.equal(server?.parentSpanId, gateway?.spanId);
});

test('an endpoint or protocol that cannot work is a usage error naming it', async () => {
  const grpcUrl = await runCli([
    'serve',
    '--upstream',
    'http://127.0.0.1:9/v1',
    '--otlp-endpoint',
    'grpc://c:4317',
  ]);
  assert.equal(grpcUrl.code, 2);
  assert.match(grpcUrl.stderr, /--otlp-endpoint \(otlpEndpoint\) must be an http:\/\/ or https:\/\/ URL/);
  const grpc = await runCli(['sim', '--port', '0', '--otlp-traces-endpoint', 'http://c:4317'], {
    ...process.env,
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc',
  });
  assert.equal(grpc.code, 2);
  assert.match(grpc.stderr, /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc is not supported/);
});
