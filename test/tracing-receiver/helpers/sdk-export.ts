// Exports spans to a receiver the way a real server does: spans built with the official OpenTelemetry SDK and
// sent by its official OTLP/HTTP exporters (exporter-trace-otlp-http for JSON, -proto for protobuf).
import { type Attributes, ROOT_CONTEXT, TraceFlags, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

export type ExportEncoding = 'json' | 'protobuf';

export interface SpanSpec {
  readonly traceId: string;
  /** The caller's span id: the span continues it, as vLLM continues an incoming traceparent. */
  readonly parentSpanId: string;
  readonly name?: string;
  readonly attributes?: Attributes;
  /** Unix milliseconds. */
  readonly startTime?: number;
  readonly endTime?: number;
}

/** vLLM's llm_request attributes (seconds), as its tracing exports them. */
export function llmRequestAttributes(seconds: {
  queue: number;
  prefill: number;
  decode: number;
  ttft: number;
  e2e: number;
}): Attributes {
  return {
    'gen_ai.latency.time_in_queue': seconds.queue,
    'gen_ai.latency.time_in_model_prefill': seconds.prefill,
    'gen_ai.latency.time_in_model_decode': seconds.decode,
    'gen_ai.latency.time_in_model_inference': seconds.prefill + seconds.decode,
    'gen_ai.latency.time_to_first_token': seconds.ttft,
    'gen_ai.latency.e2e': seconds.e2e,
    'gen_ai.usage.prompt_tokens': 12,
    'gen_ai.usage.completion_tokens': 34,
    'gen_ai.request.id': 'cmpl-1',
  };
}

/** ReadableSpans for `specs`, made by the SDK's tracer. */
export function sdkSpans(specs: readonly SpanSpec[]): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: memory })] });
  const tracer = provider.getTracer('vllm.llm_engine');
  for (const spec of specs) {
    const parent = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: spec.traceId,
      spanId: spec.parentSpanId,
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    });
    const span = tracer.startSpan(
      spec.name ?? 'llm_request',
      {
        attributes: spec.attributes ?? {},
        ...(spec.startTime === undefined ? {} : { startTime: spec.startTime }),
      },
      parent,
    );
    span.end(spec.endTime);
  }
  return memory.getFinishedSpans();
}

/** ExportResultCode.SUCCESS (@opentelemetry/core). */
const EXPORT_SUCCESS = 0;

/** Sends `spans` to `url` with the official exporter for `encoding`; resolves with whether it succeeded. */
export function exportWithSdk(
  url: string,
  encoding: ExportEncoding,
  spans: ReadableSpan[],
  gzip = false,
  headers: Record<string, string> = {},
): Promise<{ ok: boolean; error?: Error }> {
  const config = {
    url,
    headers,
    compression: gzip ? ('gzip' as never) : ('none' as never),
    timeoutMillis: 5000,
  };
  const exporter = encoding === 'json' ? new JsonExporter(config) : new ProtobufExporter(config);
  return new Promise((resolve) => {
    exporter.export(spans, (result) => {
      void exporter.shutdown();
      resolve(
        result.code === EXPORT_SUCCESS
          ? { ok: true }
          : { ok: false, ...(result.error ? { error: result.error } : {}) },
      );
    });
  });
}
