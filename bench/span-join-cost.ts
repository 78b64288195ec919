// What the span receiver's wait costs the gateway: the memory of each record held while it waits for its server's
// span, the CPU of joining (a request made known, its record held, its span offered and joined, the record
// released), and the CPU of decoding an export per span, protobuf and JSON. Not part of `npm test`. Run from the
// repository root:
//
//   npm run build && node --expose-gc dist/bench/span-join-cost.js [records held, default 10000]
//
// The held record is a streamed chat request's record with every field the gateway writes (no gaps, no body):
// what the records file gets for ordinary traffic. The export is 512 llm_request spans (the SDKs' default batch)
// built by the OpenTelemetry SDK and serialized by its own serializers, as vLLM's exporter would send them.
import { performance } from 'node:perf_hooks';
import { ROOT_CONTEXT, TraceFlags, trace } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { RequestRecord } from '../src/gateway/records/record.js';
import { newSpanId, newTraceId } from '../src/shared/trace-context.js';
import { runToEnd } from '../src/tracing/receiver/decode-slices.js';
import { DEFAULT_EXPORT_LIMITS } from '../src/tracing/receiver/export-limits.js';
import { decodeJsonTraceRequest } from '../src/tracing/receiver/otlp-json-request.js';
import { decodeProtobufTraceRequest } from '../src/tracing/receiver/otlp-protobuf-request.js';
import type { ReceivedSpan } from '../src/tracing/receiver/received-span.js';
import { SpanJoin } from '../src/tracing/receiver/span-join.js';

const held = Number(process.argv[2] ?? 10_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

function record(): RequestRecord {
  return {
    requestId: `req-${newSpanId()}`,
    role: 'primary',
    pairId: null,
    traceId: newTraceId(),
    spanId: newSpanId(),
    parentSpanId: newSpanId(),
    traceFlags: '01',
    startedAt: new Date().toISOString(),
    receivedAtMonotonicMs: performance.now(),
    method: 'POST',
    upstream: 'vllm',
    modelAsked: 'Qwen/Qwen3-8B',
    modelSent: 'Qwen/Qwen3-8B',
    pathAsked: '/v1/chat/completions',
    pathSent: '/v1/chat/completions',
    pathFixes: [],
    protocol: 'openai-chat',
    stream: true,
    status: 200,
    outcome: 'ok',
    upstreamRequestMs: 0.412,
    upstreamSocketWriteMs: 0.533,
    ttfbMs: 3.127,
    ttftMs: 48.211,
    lastTokenMs: 1512.733,
    e2eMs: 1513.02,
    tpotMs: 11.523,
    gatewayOverheadMs: 0.734,
    promptTokens: 612,
    cachedPromptTokens: null,
    outputTokens: 128,
    outputTokensSource: 'usage',
    costInput: null,
    costOutput: null,
    currency: null,
    contentChunks: 128,
    meanTokensPerChunk: 1,
    maxTokensPerChunk: null,
    finishReason: 'stop',
    sseOverflow: false,
    gapCounts: null,
    usageInjected: true,
    error: null,
    hint: null,
  };
}

function serverSpan(r: RequestRecord): ReceivedSpan {
  return {
    traceId: r.traceId,
    spanId: newSpanId(),
    parentSpanId: r.spanId,
    name: 'llm_request',
    startTimeUnixNano: 1n,
    endTimeUnixNano: 2n,
    attributes: new Map<string, number>([
      ['gen_ai.latency.time_in_queue', 0.012],
      ['gen_ai.latency.time_in_model_prefill', 0.034],
      ['gen_ai.latency.time_in_model_decode', 1.4],
      ['gen_ai.latency.time_to_first_token', 0.046],
      ['gen_ai.latency.e2e', 1.45],
    ]),
  };
}

function heldMemory(): void {
  const records = Array.from({ length: held }, record);
  let released = 0;
  const join = new SpanJoin<RequestRecord>({
    spanKey: (span) => span.traceId + span.parentSpanId,
    waitMs: 3_600_000,
    maxWaiting: held,
    release: () => released++,
  });
  gc?.();
  const before = process.memoryUsage().heapUsed;
  for (const r of records) {
    join.expect(r.traceId + r.spanId, 0n);
    join.settle(r.traceId + r.spanId, 0n, r);
  }
  gc?.();
  const joinBytes = process.memoryUsage().heapUsed - before;
  records.length = 0; // now only the join holds them
  gc?.();
  const withRecords = process.memoryUsage().heapUsed - before;
  join.close();
  gc?.();
  const recordBytes = withRecords - (process.memoryUsage().heapUsed - before);
  console.log(
    `held ${held} records: the join's own entries ${(joinBytes / held).toFixed(0)} B per record, the records themselves ${(recordBytes / held).toFixed(0)} B each; ${released} released at close`,
  );
}

function joinCpu(): void {
  const n = 100_000;
  const records = Array.from({ length: n }, record);
  const spans = records.map(serverSpan);
  let joined = 0;
  const join = new SpanJoin<RequestRecord>({
    spanKey: (span) => span.traceId + span.parentSpanId,
    waitMs: 3_600_000,
    maxWaiting: n,
    release: (_r, server) => {
      if (server !== undefined) joined++;
    },
  });
  const start = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const r = records[i] as RequestRecord;
    join.expect(r.traceId + r.spanId, 0n);
    join.settle(r.traceId + r.spanId, 0n, r);
    join.offer(spans[i] as ReceivedSpan);
  }
  const used = process.cpuUsage(cpu);
  const wall = performance.now() - start;
  console.log(
    `join: ${n} requests (known, held, span offered and joined, released) in ${wall.toFixed(0)} ms wall, ${((used.user + used.system) / n).toFixed(2)} us CPU per request; ${joined} joined`,
  );
}

function decodeCpu(): void {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: memory })] });
  const tracer = provider.getTracer('vllm.llm_engine');
  for (let i = 0; i < 512; i++) {
    const parent = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: newTraceId(),
      spanId: newSpanId(),
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    });
    tracer
      .startSpan(
        'llm_request',
        {
          attributes: {
            'gen_ai.request.id': `cmpl-${i}`,
            'gen_ai.usage.prompt_tokens': 612,
            'gen_ai.usage.completion_tokens': 128,
            'gen_ai.latency.time_in_queue': 0.012,
            'gen_ai.latency.time_to_first_token': 0.046,
            'gen_ai.latency.e2e': 1.45,
            'gen_ai.latency.time_in_model_prefill': 0.034,
            'gen_ai.latency.time_in_model_decode': 1.4,
            'gen_ai.latency.time_in_model_inference': 1.434,
            'gen_ai.request.temperature': 0.7,
            'gen_ai.request.top_p': 1,
            'gen_ai.request.max_tokens': 256,
            'gen_ai.request.n': 1,
          },
        },
        parent,
      )
      .end();
  }
  const spans = memory.getFinishedSpans();
  const protobuf = ProtobufTraceSerializer.serializeRequest(spans) as Uint8Array;
  const json = Buffer.from(JsonTraceSerializer.serializeRequest(spans) as Uint8Array);
  for (const [name, decode, size] of [
    [
      'protobuf',
      () => runToEnd(decodeProtobufTraceRequest(protobuf, DEFAULT_EXPORT_LIMITS)),
      protobuf.length,
    ],
    ['json', () => runToEnd(decodeJsonTraceRequest(json, DEFAULT_EXPORT_LIMITS)), json.length],
  ] as const) {
    for (let i = 0; i < 20; i++) decode(); // warm-up
    const rounds = 200;
    const cpu = process.cpuUsage();
    for (let i = 0; i < rounds; i++) decode();
    const used = process.cpuUsage(cpu);
    console.log(
      `decode ${name}: an export of 512 spans is ${(size / 1024).toFixed(0)} KiB, ${((used.user + used.system) / rounds / 512).toFixed(2)} us CPU per span`,
    );
  }
}

heldMemory();
joinCpu();
decodeCpu();
