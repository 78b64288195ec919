// The simulator traces like vLLM: with --otlp-traces-endpoint (vLLM's flag), every generation exports one span
// named `llm_request` (kind SERVER, from arrival to end), continuing the request's incoming traceparent, with
// vLLM's own attribute names (vllm/tracing.py SpanAttributes; read at vLLM commit 03b8a674 on main) and values
// from the simulator's scheduler, not estimates: queue time until a seat was free, prefill until the first token
// was written, decode until the last. Latencies are seconds, as vLLM writes them.

import type { IncomingMessage } from 'node:http';
import { newSpan, parseTraceparent, type TraceSpan } from '../shared/trace-context.js';
import { SERVER_SPAN_KIND } from '../tracing/genai-semconv.js';
import { resolveOtlpExport } from '../tracing/otlp-settings.js';
import type { SpanExport } from '../tracing/span-export.js';
import type { GenerationRequest } from './protocols/protocol.js';
import type { RequestTruth } from './request-truth.js';

const SECONDS_PER_MS = 1 / 1000;

function seconds(fromMs: number | undefined, toMs: number | undefined): number | undefined {
  return fromMs === undefined || toMs === undefined ? undefined : (toMs - fromMs) * SECONDS_PER_MS;
}

export class SimSpans {
  readonly #export: SpanExport;

  private constructor(spanExport: SpanExport) {
    this.#export = spanExport;
  }

  /**
   * Null when --otlp-traces-endpoint is not given: like vLLM, the OTEL_* endpoints alone do not turn it on. The
   * OpenTelemetry SDK is loaded only then (about 250 modules a simulator without spans does not load).
   */
  static async fromConfig(
    otlpTracesEndpoint: string | undefined,
    env: NodeJS.ProcessEnv,
  ): Promise<SimSpans | null> {
    const settings = resolveOtlpExport(
      {
        endpoint: otlpTracesEndpoint,
        endpointKind: 'traces',
        envEnables: false,
        defaultServiceName: 'tokenmeter-sim',
        source: '--otlp-traces-endpoint',
      },
      env,
    );
    if (settings === null) return null;
    const { SpanExport } = await import('../tracing/span-export.js');
    return new SimSpans(new SpanExport(settings));
  }

  get counts() {
    return this.#export.counts;
  }

  /** The request's span: continuing its traceparent, or starting a trace when it has none (as vLLM does). */
  spanOf(req: IncomingMessage): TraceSpan {
    return newSpan(parseTraceparent(req.headers['traceparent']));
  }

  /** Called once, when the generation ends (finished, cut or cancelled). */
  finish(truth: RequestTruth, request: GenerationRequest, trace: TraceSpan): void {
    const firstTokenMs = truth.contentChunkEmittedAtMs[0];
    const lastTokenMs = truth.contentChunkEmittedAtMs[truth.contentChunkEmittedAtMs.length - 1];
    const endedAtMs = truth.endedAtMs ?? truth.receivedAtMs;
    const latencies: Record<string, number | undefined> = {
      'gen_ai.latency.time_in_queue': seconds(truth.receivedAtMs, truth.startedAtMs),
      'gen_ai.latency.time_to_first_token': seconds(truth.receivedAtMs, firstTokenMs),
      'gen_ai.latency.e2e': seconds(truth.receivedAtMs, endedAtMs),
      'gen_ai.latency.time_in_model_prefill': seconds(truth.startedAtMs, firstTokenMs),
      'gen_ai.latency.time_in_model_decode': seconds(firstTokenMs, lastTokenMs),
      'gen_ai.latency.time_in_model_inference': seconds(truth.startedAtMs, lastTokenMs),
    };
    const attributes: Record<string, string | number> = {
      'gen_ai.request.id': truth.requestId,
      'gen_ai.response.model': truth.model,
      'gen_ai.usage.prompt_tokens': truth.promptTokens,
      'gen_ai.usage.completion_tokens': truth.completionTokens,
      'gen_ai.request.temperature': request.temperature,
      // One sequence per request: the simulator, like most clients of vLLM, never samples n > 1.
      'gen_ai.request.n': 1,
    };
    if (request.maxTokens !== undefined) attributes['gen_ai.request.max_tokens'] = request.maxTokens;
    for (const [name, value] of Object.entries(latencies)) if (value !== undefined) attributes[name] = value;
    this.#export.add({
      name: 'llm_request',
      kind: SERVER_SPAN_KIND,
      trace,
      startMs: truth.receivedAtMs,
      endMs: endedAtMs,
      attributes,
      events: [],
      errorDescription: null,
    });
  }

  shutdown(): Promise<void> {
    return this.#export.shutdown();
  }
}
