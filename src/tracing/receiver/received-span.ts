// A span as the receiver keeps it, whichever encoding it came in: ids as lower-case hex (as the records write
// them), times as Unix nanoseconds, and the attributes that have a scalar value. Array, key-value-list and bytes
// attribute values are left out: nothing the join reads has them.

export type ScalarAttribute = string | number | boolean;

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Empty when the span is a trace's root. */
  readonly parentSpanId: string;
  readonly name: string;
  readonly startTimeUnixNano: bigint;
  readonly endTimeUnixNano: bigint;
  readonly attributes: ReadonlyMap<string, ScalarAttribute>;
}

const TRACE_ID_HEX = /^[0-9a-f]{32}$/;
const SPAN_ID_HEX = /^[0-9a-f]{16}$/;

/**
 * Whether a decoded span's ids are usable: a 16-byte trace id and an 8-byte span id (OTLP forbids others). A span
 * that fails is counted as rejected in the export's partial_success.
 */
export function hasValidIds(span: ReceivedSpan): boolean {
  return (
    TRACE_ID_HEX.test(span.traceId) &&
    SPAN_ID_HEX.test(span.spanId) &&
    (span.parentSpanId === '' || SPAN_ID_HEX.test(span.parentSpanId))
  );
}
