// Decodes an OTLP ExportTraceServiceRequest in protobuf (opentelemetry-proto, collector/trace/v1 and trace/v1)
// to the spans it carries. Field numbers are the .proto files'; fields the join does not read are skipped, so a
// newer sender's additions pass through. Within the export's limits (export-limits.ts): spans past maxSpans are
// passed over and counted, attributes past maxAttributesPerSpan passed over; and it yields every few hundred
// fields, however they nest, so that it runs in slices (decode-slices.ts).
import { Pace, type SlicedWork } from './decode-slices.js';
import type { DecodedExport, ExportLimits } from './export-limits.js';
import {
  expectWireType,
  ProtobufReader,
  WIRE_FIXED64,
  WIRE_LENGTH_DELIMITED,
  WIRE_VARINT,
} from './protobuf-reader.js';
import type { ReceivedSpan, ScalarAttribute } from './received-span.js';

/** ExportTraceServiceRequest: 1 resource_spans. ResourceSpans: 2 scope_spans. ScopeSpans: 2 spans. */
const REQUEST_RESOURCE_SPANS = 1;
const RESOURCE_SPANS_SCOPE_SPANS = 2;
const SCOPE_SPANS_SPANS = 2;

/** Span fields. */
const SPAN_TRACE_ID = 1;
const SPAN_SPAN_ID = 2;
const SPAN_PARENT_SPAN_ID = 4;
const SPAN_NAME = 5;
const SPAN_START_TIME = 7;
const SPAN_END_TIME = 8;
const SPAN_ATTRIBUTES = 9;

/** KeyValue: 1 key, 2 value. AnyValue's scalar cases. */
const KEY_VALUE_KEY = 1;
const KEY_VALUE_VALUE = 2;
const ANY_STRING = 1;
const ANY_BOOL = 2;
const ANY_INT = 3;
const ANY_DOUBLE = 4;

export function* decodeProtobufTraceRequest(
  body: Uint8Array,
  limits: ExportLimits,
): SlicedWork<DecodedExport> {
  const spans: ReceivedSpan[] = [];
  let overLimit = 0;
  const pace = new Pace();
  const request = new ProtobufReader(body);
  while (!request.done) {
    if (pace.tick()) yield;
    const tag = request.tag();
    if (tag.field !== REQUEST_RESOURCE_SPANS) {
      request.skip(tag.wireType);
      continue;
    }
    expectWireType(tag, WIRE_LENGTH_DELIMITED);
    const resourceSpans = request.message();
    while (!resourceSpans.done) {
      if (pace.tick()) yield;
      const scopeTag = resourceSpans.tag();
      if (scopeTag.field !== RESOURCE_SPANS_SCOPE_SPANS) {
        resourceSpans.skip(scopeTag.wireType);
        continue;
      }
      expectWireType(scopeTag, WIRE_LENGTH_DELIMITED);
      const scopeSpans = resourceSpans.message();
      while (!scopeSpans.done) {
        if (pace.tick()) yield;
        const spanTag = scopeSpans.tag();
        if (spanTag.field !== SCOPE_SPANS_SPANS) {
          scopeSpans.skip(spanTag.wireType);
          continue;
        }
        expectWireType(spanTag, WIRE_LENGTH_DELIMITED);
        if (spans.length < limits.maxSpans) {
          spans.push(yield* readSpan(scopeSpans.message(), limits.maxAttributesPerSpan, pace));
        } else {
          scopeSpans.skip(WIRE_LENGTH_DELIMITED);
          overLimit++;
        }
      }
    }
  }
  return { spans, overLimit };
}

function* readSpan(reader: ProtobufReader, maxAttributes: number, pace: Pace): SlicedWork<ReceivedSpan> {
  let traceId = '';
  let spanId = '';
  let parentSpanId = '';
  let name = '';
  let startTimeUnixNano = 0n;
  let endTimeUnixNano = 0n;
  let attributesSeen = 0;
  const attributes = new Map<string, ScalarAttribute>();
  while (!reader.done) {
    if (pace.tick()) yield;
    const tag = reader.tag();
    switch (tag.field) {
      case SPAN_TRACE_ID:
        expectWireType(tag, WIRE_LENGTH_DELIMITED);
        traceId = reader.hex();
        break;
      case SPAN_SPAN_ID:
        expectWireType(tag, WIRE_LENGTH_DELIMITED);
        spanId = reader.hex();
        break;
      case SPAN_PARENT_SPAN_ID:
        expectWireType(tag, WIRE_LENGTH_DELIMITED);
        parentSpanId = reader.hex();
        break;
      case SPAN_NAME:
        expectWireType(tag, WIRE_LENGTH_DELIMITED);
        name = reader.string();
        break;
      case SPAN_START_TIME:
        expectWireType(tag, WIRE_FIXED64);
        startTimeUnixNano = reader.fixed64();
        break;
      case SPAN_END_TIME:
        expectWireType(tag, WIRE_FIXED64);
        endTimeUnixNano = reader.fixed64();
        break;
      case SPAN_ATTRIBUTES:
        expectWireType(tag, WIRE_LENGTH_DELIMITED);
        if (attributesSeen++ < maxAttributes) readKeyValue(reader.message(), attributes);
        else reader.skip(WIRE_LENGTH_DELIMITED);
        break;
      default:
        reader.skip(tag.wireType);
    }
  }
  return { traceId, spanId, parentSpanId, name, startTimeUnixNano, endTimeUnixNano, attributes };
}

/**
 * A KeyValue has two fields and an AnyValue one; an encoder may repeat a field (the last one counts), but one
 * that writes more than this many is hostile, and the rest of its message is left unread: each read here is a
 * bounded amount of work, so that the span's own loop is where the decoder yields.
 */
const MAX_FIELDS_OF_A_VALUE = 8;

function readKeyValue(reader: ProtobufReader, into: Map<string, ScalarAttribute>): void {
  let key = '';
  let value: ScalarAttribute | undefined;
  for (let fields = 0; !reader.done && fields < MAX_FIELDS_OF_A_VALUE; fields++) {
    const tag = reader.tag();
    if (tag.field === KEY_VALUE_KEY) {
      expectWireType(tag, WIRE_LENGTH_DELIMITED);
      key = reader.string();
    } else if (tag.field === KEY_VALUE_VALUE) {
      expectWireType(tag, WIRE_LENGTH_DELIMITED);
      value = readScalar(reader.message());
    } else {
      reader.skip(tag.wireType);
    }
  }
  if (key !== '' && value !== undefined) into.set(key, value);
}

/** AnyValue's scalar case, or undefined for the others (array, kvlist, bytes) and an empty value. */
function readScalar(reader: ProtobufReader): ScalarAttribute | undefined {
  let value: ScalarAttribute | undefined;
  for (let fields = 0; !reader.done && fields < MAX_FIELDS_OF_A_VALUE; fields++) {
    const tag = reader.tag();
    switch (tag.field) {
      case ANY_STRING:
        expectWireType(tag, WIRE_LENGTH_DELIMITED);
        value = reader.string();
        break;
      case ANY_BOOL:
        expectWireType(tag, WIRE_VARINT);
        value = reader.varint() !== 0;
        break;
      case ANY_INT:
        expectWireType(tag, WIRE_VARINT);
        value = reader.int64();
        break;
      case ANY_DOUBLE:
        expectWireType(tag, WIRE_FIXED64);
        value = reader.double();
        break;
      default:
        reader.skip(tag.wireType);
        value = undefined;
    }
  }
  return value;
}
