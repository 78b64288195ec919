// What one exported span costs the process that exports it, apart from everything else the gateway does: CPU
// time per span for building a gateway-like span and handing it to the batch exporter, and for the batches'
// serialization and HTTP sends to a local OTLP receiver that discards them (in this process too, so its cost is
// counted: an upper bound). Not part of `npm test`. Run from the repository root:
//
//   npm run build && node dist/bench/span-export-cost.js [--spans 20000] [--protocol http/protobuf]
//
// Spans are added in bursts of 64 per event-loop turn, as finished requests arrive, so the batch processor's
// timer and sends interleave with them as they would in the gateway.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { SpanKind } from '@opentelemetry/api';
import { newSpan, newTraceId } from '../src/shared/trace-context.js';
import { genAiAttributes, genAiSpanName } from '../src/tracing/genai-semconv.js';
import { resolveOtlpExport } from '../src/tracing/otlp-settings.js';
import { SpanExport } from '../src/tracing/span-export.js';

const { values: args } = parseArgs({
  options: {
    spans: { type: 'string', default: '20000' },
    protocol: { type: 'string', default: 'http/protobuf' },
  },
});
const total = Number(args.spans);
const BURST = 64;

const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200).end());
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
const settings = resolveOtlpExport(
  { endpoint: url, endpointKind: 'base', envEnables: false, defaultServiceName: 'bench', source: '--url' },
  { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: args.protocol, OTEL_BSP_SCHEDULE_DELAY: '100' },
);
if (settings === null) throw new Error('export settings');
const spans = new SpanExport(settings);
const server = new URL('http://127.0.0.1:8000');

function addOne(i: number): void {
  const start = performance.now();
  const facts = {
    protocol: 'openai-chat' as const,
    requestModel: 'Qwen/Qwen3-8B',
    responseModel: null,
    stream: true,
    inputTokens: 512,
    outputTokens: 128,
    finishReason: 'stop',
    server,
    errorType: null,
    timeToFirstChunkS: 0.05,
  };
  spans.add({
    name: genAiSpanName(facts),
    kind: SpanKind.SERVER,
    trace: newSpan({ traceId: newTraceId(), parentId: 'a1b2c3d4e5f60718', flags: '03' }),
    startMs: start,
    endMs: start + 900,
    attributes: {
      ...genAiAttributes(facts, '1.36.0'),
      'http.response.status_code': 200,
      'tokenmeter.request_id': `bench-${i}`,
      'tokenmeter.outcome': 'ok',
      'tokenmeter.upstream': 'vllm',
      'tokenmeter.ttfb_ms': 12.5,
      'tokenmeter.ttft_ms': 50.25,
      'tokenmeter.gateway_overhead_ms': 0.4,
    },
    events: [{ name: 'gen_ai.first_token', atMs: start + 50 }],
    errorDescription: null,
  });
}

async function run(count: number): Promise<void> {
  for (let i = 0; i < count; i += BURST) {
    for (let j = i; j < Math.min(count, i + BURST); j++) addOne(j);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

await run(2000); // warm-up: JIT, the exporter's connection
const cpuBefore = process.cpuUsage();
const wallBefore = performance.now();
await run(total);
await spans.shutdown(); // every batch sent and answered
const cpu = process.cpuUsage(cpuBefore);
const wallMs = performance.now() - wallBefore;
const cpuMs = (cpu.user + cpu.system) / 1000;
console.log(
  `${total} spans, ${args.protocol}: ${((cpuMs * 1000) / total).toFixed(1)} us CPU per span (${cpuMs.toFixed(0)} ms CPU in ${wallMs.toFixed(0)} ms); ` +
    `exported ${spans.counts.exported}, dropped ${spans.counts.dropped}, failed ${spans.counts.failed}`,
);
receiver.close();
