// Decodes an OTLP ExportTraceServiceRequest in protobuf (opentelemetry-proto, collector/trace/v1 and trace/v1)
// to the spans it carries. Field numbers are the .proto files'; fields the join does not read are skipped, so a
// newer sender's additions pass through.
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

export function decodeProtobufTraceRequest(body: Uint8Array): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  const request = new ProtobufReader(body);
  while (!request.done) {
    const tag = request.tag();
    if (tag.field !== REQUEST_RESOURCE_SPANS) {
      request.skip(tag.wireType);
      continue;
    }
    expectWireType(tag, WIRE_LENGTH_DELIMITED);
    eachEmbedded(request.message(), RESOURCE_SPANS_SCOPE_SPANS, (scopeSpans) =>
      eachEmbedded(scopeSpans, SCOPE_SPANS_SPANS, (span) => spans.push(readSpan(span))),
    );
  }
  return spans;
}

/** Calls `read` with each embedded message in `field` of the message `reader` is over. */
function eachEmbedded(reader: ProtobufReader, field: number, read: (inner: ProtobufReader) => void): void {
  while (!reader.done) {
    const tag = reader.tag();
    if (tag.field !== field) {
      reader.skip(tag.wireType);
      continue;
    }
    expectWireType(tag, WIRE_LENGTH_DELIMITED);
    read(reader.message());
  }
}

function readSpan(reader: ProtobufReader): ReceivedSpan {
  let traceId = '';
  let spanId = '';
  let parentSpanId = '';
  let name = '';
  let startTimeUnixNano = 0n;
  let endTimeUnixNano = 0n;
  const attributes = new Map<string, ScalarAttribute>();
  while (!reader.done) {
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
        readKeyValue(reader.message(), attributes);
        break;
      default:
        reader.skip(tag.wireType);
    }
  }
  return { traceId, spanId, parentSpanId, name, startTimeUnixNano, endTimeUnixNano, attributes };
}

function readKeyValue(reader: ProtobufReader, into: Map<string, ScalarAttribute>): void {
  let key = '';
  let value: ScalarAttribute | undefined;
  while (!reader.done) {
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
  while (!reader.done) {
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
