// What one export may make the receiver build, by count: the body bound (maxBodyBytes) alone does not bound it,
// since an export of 4 MiB holds two million empty spans in protobuf, and decoding them all took a gateway from
// 83 to 691 MB and held its event loop for seconds. The counts follow OpenTelemetry's own SDK defaults, so no
// exporter left at its defaults comes near them: a batch is at most the span queue (OTEL_BSP_MAX_QUEUE_SIZE,
// 2048; vLLM's batches are 512), and a span keeps at most 128 attributes (OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT).
import type { ReceivedSpan } from './received-span.js';

/** Spans read of one export; the rest are counted, not read, and reported rejected (partial_success). */
export const MAX_SPANS_PER_EXPORT = 2048;
/** Attributes read of one span; the rest are passed over, as an SDK past its own limit drops them. */
export const MAX_ATTRIBUTES_PER_SPAN = 128;
/**
 * JSON values (objects, arrays, strings, numbers, booleans, nulls and member names) in one JSON export: a JSON
 * body must be parsed whole before any of it is read, and parsing costs by the value (262,144 empty objects
 * take 17 ms, the 1.4 million of a 4 MiB body 290 ms, measured on the 2-core development machine). 2048 spans
 * with vLLM's attributes are about 230,000.
 */
export const MAX_JSON_VALUES = 262_144;

export interface ExportLimits {
  readonly maxSpans: number;
  readonly maxAttributesPerSpan: number;
  readonly maxJsonValues: number;
}

export const DEFAULT_EXPORT_LIMITS: ExportLimits = {
  maxSpans: MAX_SPANS_PER_EXPORT,
  maxAttributesPerSpan: MAX_ATTRIBUTES_PER_SPAN,
  maxJsonValues: MAX_JSON_VALUES,
};

/** An export's spans as decoded: at most `maxSpans` of them, and how many more it held. */
export interface DecodedExport {
  readonly spans: ReceivedSpan[];
  /** Spans past `maxSpans`: counted, not read. */
  readonly overLimit: number;
}

/** An export past a bound that cannot be applied while reading it (a JSON body is parsed whole): refused, 413. */
export class ExportTooLargeError extends Error {}
