// The server's own account of one request, read from the span it exports: vLLM's `llm_request` span (SGLang uses
// the same attribute names), whose `gen_ai.latency.*` attributes are seconds measured by the server's scheduler.
// These names are vLLM's own (vllm/tracing.py SpanAttributes), not OpenTelemetry semantic conventions.
import type { ReceivedSpan } from './received-span.js';

/**
 * The `server` field of a record: milliseconds, each present only when the span carried it. `startMs` is when
 * the server's span began relative to the request's start on the recording side, by the two machines' wall
 * clocks: only as exact as their clocks agree (on one host, exact to the microsecond).
 */
export interface ServerSegments {
  /** Waiting in the server's scheduler queue (`gen_ai.latency.time_in_queue`). */
  readonly queueMs?: number;
  /** Prefill, the prompt's forward passes (`gen_ai.latency.time_in_model_prefill`). */
  readonly prefillMs?: number;
  /** Decode, generating the output (`gen_ai.latency.time_in_model_decode`). */
  readonly decodeMs?: number;
  /** The server's time to first token, from its arrival (`gen_ai.latency.time_to_first_token`). */
  readonly ttftMs?: number;
  /** The server's end-to-end time (`gen_ai.latency.e2e`). */
  readonly e2eMs?: number;
  /** Prefill plus decode (`gen_ai.latency.time_in_model_inference`). */
  readonly inferenceMs?: number;
  readonly startMs?: number;
}

const SECONDS_ATTRIBUTES = {
  queueMs: 'gen_ai.latency.time_in_queue',
  prefillMs: 'gen_ai.latency.time_in_model_prefill',
  decodeMs: 'gen_ai.latency.time_in_model_decode',
  ttftMs: 'gen_ai.latency.time_to_first_token',
  e2eMs: 'gen_ai.latency.e2e',
  inferenceMs: 'gen_ai.latency.time_in_model_inference',
} as const;

type SegmentName = keyof typeof SECONDS_ATTRIBUTES;

function ms(seconds: number): number {
  return Math.round(seconds * 1e6) / 1000;
}

/**
 * The segments `span` carries, or undefined when it carries none (it is not a server's request span).
 * `requestStartUnixNano` is the recording side's start of the request, for `startMs` (left out when null).
 */
export function serverSegmentsOf(
  span: ReceivedSpan,
  requestStartUnixNano: bigint | null,
): ServerSegments | undefined {
  const segments: { -readonly [K in keyof ServerSegments]: number } = {};
  let found = false;
  for (const [name, attribute] of Object.entries(SECONDS_ATTRIBUTES) as [SegmentName, string][]) {
    const seconds = span.attributes.get(attribute);
    if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) continue;
    segments[name] = ms(seconds);
    found = true;
  }
  if (!found) return undefined;
  if (span.startTimeUnixNano > 0n && requestStartUnixNano !== null)
    segments.startMs = Math.round(Number(span.startTimeUnixNano - requestStartUnixNano) / 1000) / 1000;
  return segments;
}
