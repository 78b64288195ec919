// Where spans go, from the flag or config key and the standard OTEL_* variables: off unless an endpoint is
// given, a base endpoint gets /v1/traces, the traces endpoint is used as given, the flag wins, and what cannot
// work (gRPC, a non-HTTP URL, a bad number) is refused with a message naming the setting.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type OtlpEndpointInput, resolveOtlpExport } from '../../src/tracing/otlp-settings.js';

const GATEWAY: OtlpEndpointInput = {
  endpoint: undefined,
  endpointKind: 'base',
  envEnables: true,
  defaultServiceName: 'tokenmeter-gateway',
  source: '--otlp-endpoint',
};

test('off without an endpoint, or with OTEL_SDK_DISABLED=true', () => {
  assert.equal(resolveOtlpExport(GATEWAY, {}), null);
  assert.equal(
    resolveOtlpExport({ ...GATEWAY, endpoint: 'http://c:4318' }, { OTEL_SDK_DISABLED: 'true' }),
    null,
  );
  // The simulator, like vLLM, exports only with its flag.
  assert.equal(
    resolveOtlpExport(
      { ...GATEWAY, endpointKind: 'traces', envEnables: false },
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' },
    ),
    null,
  );
});

test('endpoints: base + /v1/traces, traces URL as given, the flag over the environment', () => {
  const at = (input: Partial<OtlpEndpointInput>, env: NodeJS.ProcessEnv) =>
    resolveOtlpExport({ ...GATEWAY, ...input }, env)?.tracesUrl;
  assert.equal(at({ endpoint: 'http://c:4318' }, {}), 'http://c:4318/v1/traces');
  assert.equal(at({ endpoint: 'https://c/otlp/' }, {}), 'https://c/otlp/v1/traces');
  assert.equal(at({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }), 'http://c:4318/v1/traces');
  assert.equal(
    at(
      {},
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:1/x', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' },
    ),
    'http://t:1/x',
  );
  assert.equal(
    at({ endpoint: 'http://f:2' }, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
    'http://f:2/v1/traces',
  );
  assert.equal(at({ endpoint: 'http://t:1/v1/traces', endpointKind: 'traces' }, {}), 'http://t:1/v1/traces');
});

test('protocol, service name, queue and timeout from the environment, with the specification defaults', () => {
  const defaults = resolveOtlpExport({ ...GATEWAY, endpoint: 'http://c:4318' }, {});
  assert.deepEqual(defaults, {
    tracesUrl: 'http://c:4318/v1/traces',
    protocol: 'http/protobuf',
    serviceName: 'tokenmeter-gateway',
    maxQueueSize: 2048,
    maxExportBatchSize: 512,
    scheduledDelayMs: 5000,
    exportTimeoutMs: 10_000,
  });
  const set = resolveOtlpExport(
    { ...GATEWAY, endpoint: 'http://c:4318' },
    {
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'edge',
      OTEL_BSP_MAX_QUEUE_SIZE: '100',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '500',
      OTEL_EXPORTER_OTLP_TIMEOUT: '7000',
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '3000',
    },
  );
  assert.equal(set?.protocol, 'http/json');
  assert.equal(set?.serviceName, 'edge');
  assert.equal(set?.maxQueueSize, 100);
  assert.equal(set?.maxExportBatchSize, 100, 'a batch never exceeds the queue');
  assert.equal(set?.exportTimeoutMs, 3000);
});

test('refused: gRPC, a non-HTTP URL, a bad number', () => {
  const endpoint = 'http://c:4318';
  assert.throws(
    () => resolveOtlpExport({ ...GATEWAY, endpoint }, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
    /OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported.*http\/protobuf or http\/json/,
  );
  assert.throws(
    () => resolveOtlpExport({ ...GATEWAY, endpoint: 'grpc://c:4317' }, {}),
    /--otlp-endpoint must be an http/,
  );
  assert.throws(() => resolveOtlpExport({ ...GATEWAY, endpoint: 'c:4318:x' }, {}), /--otlp-endpoint/);
  assert.throws(
    () => resolveOtlpExport({ ...GATEWAY, endpoint }, { OTEL_BSP_MAX_QUEUE_SIZE: 'lots' }),
    /OTEL_BSP_MAX_QUEUE_SIZE must be a positive whole number/,
  );
});
