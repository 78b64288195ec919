// The gateway's span of each request (kind SERVER): built from its finished record, the one place that knows
// the whole request, and handed to the batch exporter. Its ids are the record's (spanId, and the client's span
// as parent), its times the record's, on the measurement's monotonic clock; the first token is an event. A
// mirrored copy's record (src/gateway/exchange/mirrors.ts) becomes a CLIENT span, the child of its primary's span: the
// gateway calling the mirror upstream on its own account.
import {
  CLIENT_SPAN_KIND,
  FIRST_OUTPUT_TOKEN_EVENT,
  FIRST_TOKEN_EVENT,
  type GenAiSemconvVersion,
  genAiAttributes,
  genAiSpanName,
  SERVER_SPAN_KIND,
} from '../../tracing/genai-semconv.js';
import type { SpanEventFacts, SpanExport } from '../../tracing/span-export.js';
import type { ResolvedUpstream } from '../config/config-resolve.js';
import type { RecordSink } from '../records/record.js';

/** A record sink that exports each request's span. */
export function gatewaySpanSink(
  spans: SpanExport,
  upstreams: readonly ResolvedUpstream[],
  semconv: GenAiSemconvVersion,
): RecordSink {
  // Looked up per request by name; built once.
  const servers = new Map<string, URL>(upstreams.map((u) => [u.name, new URL(u.base.origin)]));
  return (record) => {
    const server = record.upstream === null ? undefined : servers.get(record.upstream);
    const facts = {
      protocol: record.protocol ?? undefined,
      requestModel: record.modelAsked,
      responseModel: null,
      stream: record.stream,
      inputTokens: record.promptTokens,
      outputTokens: record.outputTokens,
      finishReason: record.finishReason,
      server: server ?? null,
      errorType: record.outcome === 'ok' ? null : record.outcome,
      timeToFirstChunkS: record.ttftMs === null ? null : record.ttftMs / 1000,
    };
    const start = record.receivedAtMonotonicMs;
    const events: SpanEventFacts[] =
      record.ttftMs === null ? [] : [{ name: FIRST_TOKEN_EVENT, atMs: start + record.ttftMs }];
    // A model that reasoned began its answer later than its first token: that moment is an event of its own.
    const ttfo = record.ttfoMs ?? null;
    if (ttfo !== null && ttfo !== record.ttftMs)
      events.push({ name: FIRST_OUTPUT_TOKEN_EVENT, atMs: start + ttfo });
    spans.add({
      name: genAiSpanName(facts),
      kind: record.role === 'mirror' ? CLIENT_SPAN_KIND : SERVER_SPAN_KIND,
      trace: {
        traceId: record.traceId,
        spanId: record.spanId,
        parentSpanId: record.parentSpanId,
        flags: record.traceFlags,
      },
      startMs: start,
      endMs: start + record.e2eMs,
      attributes: {
        ...genAiAttributes(facts, semconv),
        ...(record.status === 0 ? {} : { 'http.response.status_code': record.status }),
        // The GenAI conventions' conversation id: the session, which spans may carry and metrics never do.
        ...(record.sessionId == null ? {} : { 'gen_ai.conversation.id': record.sessionId }),
        ...(record.turn == null ? {} : { 'tokenmeter.session.turn': record.turn }),
        'tokenmeter.request_id': record.requestId,
        'tokenmeter.outcome': record.outcome,
        'tokenmeter.role': record.role,
        ...(record.upstream === null ? {} : { 'tokenmeter.upstream': record.upstream }),
        ...(record.ttfbMs === null ? {} : { 'tokenmeter.ttfb_ms': record.ttfbMs }),
        ...(record.ttftMs === null ? {} : { 'tokenmeter.ttft_ms': record.ttftMs }),
        ...(ttfo === null ? {} : { 'tokenmeter.ttfo_ms': ttfo }),
        ...(record.reasoningTokens == null || record.reasoningTokens === 0
          ? {}
          : { 'tokenmeter.reasoning_tokens': record.reasoningTokens }),
        'tokenmeter.gateway_overhead_ms': record.gatewayOverheadMs,
      },
      events,
      errorDescription: record.outcome === 'ok' ? null : (record.error ?? record.outcome),
    });
  };
}
