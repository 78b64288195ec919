// The load generator's span of each request (kind CLIENT, the root of its trace): built from the request's
// record as it finishes, with the record's traceId and spanId (the gateway's parentSpanId), and handed to the
// batch exporter. Times are the record's offsets on the run's monotonic clock; the span ends when the record is
// made, which the engines do as the response ends. A model that reasoned gets what the gateway's span has
// (src/gateway/spans/gateway-span.ts): its TTFO, its reasoning tokens and the answer's start as an event.
import type { ProtocolName } from '../../src/protocols/index.js';
import { STARTED_FLAGS } from '../../src/shared/trace-context.js';
import {
  CLIENT_SPAN_KIND,
  FIRST_OUTPUT_TOKEN_EVENT,
  FIRST_TOKEN_EVENT,
  type GenAiSemconvVersion,
  genAiAttributes,
  genAiSpanName,
} from '../../src/tracing/genai-semconv.js';
import type { SpanEventFacts, SpanExport } from '../../src/tracing/span-export.js';
import type { RequestRecord } from '../record.js';

export interface ClientSpanTarget {
  /** `http://host:port` the requests go to. */
  readonly origin: string;
  readonly protocol: ProtocolName;
  /** The body's `model`. */
  readonly model: string;
}

export function clientSpanSink(
  spans: SpanExport,
  target: ClientSpanTarget,
  semconv: GenAiSemconvVersion,
): (record: RequestRecord, runStartMs: number, endedAtMs: number) => void {
  const server = new URL(target.origin);
  return (record, runStartMs, endedAtMs) => {
    // Never sent (aborted while queued): there was no request to trace. Records read from old files lack ids.
    if (record.sentAtMs === null || record.traceId === undefined || record.spanId === undefined) return;
    const facts = {
      protocol: target.protocol,
      requestModel: target.model,
      responseModel: null,
      stream: true,
      inputTokens: record.promptTokens,
      outputTokens: record.outcome === 'ok' ? record.outputTokens : null,
      finishReason: null,
      server,
      errorType: record.outcome === 'ok' ? null : record.outcome,
      timeToFirstChunkS: record.ttftMs === null ? null : record.ttftMs / 1000,
    };
    const start = runStartMs + record.sentAtMs;
    const events: SpanEventFacts[] =
      record.ttftMs === null ? [] : [{ name: FIRST_TOKEN_EVENT, atMs: start + record.ttftMs }];
    const ttfo = record.ttfoMs ?? null;
    if (ttfo !== null && ttfo !== record.ttftMs)
      events.push({ name: FIRST_OUTPUT_TOKEN_EVENT, atMs: start + ttfo });
    spans.add({
      name: genAiSpanName(facts),
      kind: CLIENT_SPAN_KIND,
      trace: { traceId: record.traceId, spanId: record.spanId, parentSpanId: null, flags: STARTED_FLAGS },
      startMs: start,
      endMs: endedAtMs,
      attributes: {
        ...genAiAttributes(facts, semconv),
        ...(record.status === null ? {} : { 'http.response.status_code': record.status }),
        'tokenmeter.request_index': record.index,
        'tokenmeter.outcome': record.outcome,
        'tokenmeter.client_queue_ms': record.clientQueueMs,
        ...(record.ttfbMs === null ? {} : { 'tokenmeter.ttfb_ms': record.ttfbMs }),
        ...(record.ttftMs === null ? {} : { 'tokenmeter.ttft_ms': record.ttftMs }),
        ...(ttfo === null ? {} : { 'tokenmeter.ttfo_ms': ttfo }),
        ...(record.reasoningTokens == null || record.reasoningTokens === 0
          ? {}
          : { 'tokenmeter.reasoning_tokens': record.reasoningTokens }),
      },
      events,
      errorDescription: record.outcome === 'ok' ? null : (record.error ?? record.outcome),
    });
  };
}
