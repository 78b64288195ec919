// Decodes an OTLP ExportTraceServiceRequest in JSON (OTLP/HTTP's JSON encoding: lowerCamelCase field names,
// trace and span ids as hex strings, 64-bit integers as decimal strings or numbers) to the spans it carries.
// Unknown fields are ignored, as the OTLP specification asks of receivers. A body that is not JSON or whose
// structure is not the message's throws `OtlpJsonError`, answered with 400.
import type { ReceivedSpan, ScalarAttribute } from './received-span.js';

export class OtlpJsonError extends Error {}

type Json = Record<string, unknown>;

export function decodeJsonTraceRequest(body: string): ReceivedSpan[] {
  let request: unknown;
  try {
    request = JSON.parse(body);
  } catch {
    throw new OtlpJsonError('the body is not JSON');
  }
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of list(object(request, 'request'), 'resourceSpans')) {
    for (const scopeSpans of list(object(resourceSpans, 'resourceSpans'), 'scopeSpans')) {
      for (const span of list(object(scopeSpans, 'scopeSpans'), 'spans'))
        spans.push(readSpan(object(span, 'span')));
    }
  }
  return spans;
}

function object(value: unknown, what: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new OtlpJsonError(`${what} is not an object`);
  return value as Json;
}

/** An absent repeated field is an empty one (proto3 JSON). */
function list(parent: Json, field: string): unknown[] {
  const value = parent[field];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new OtlpJsonError(`${field} is not an array`);
  return value;
}

function text(parent: Json, field: string): string {
  const value = parent[field];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new OtlpJsonError(`${field} is not a string`);
  return value;
}

/** Ids are hex in OTLP/JSON; upper case is accepted and lowered, so they compare with the records' ids. */
function id(parent: Json, field: string): string {
  return text(parent, field).toLowerCase();
}

function unixNano(parent: Json, field: string): bigint {
  const value = parent[field];
  if (value === undefined || value === null) return 0n;
  if (
    (typeof value === 'string' && /^\d+$/.test(value)) ||
    (typeof value === 'number' && Number.isInteger(value))
  )
    return BigInt(value);
  throw new OtlpJsonError(`${field} is not an unsigned integer`);
}

function readSpan(span: Json): ReceivedSpan {
  const attributes = new Map<string, ScalarAttribute>();
  for (const entry of list(span, 'attributes')) {
    const keyValue = object(entry, 'attribute');
    const key = text(keyValue, 'key');
    const value = keyValue['value'] === undefined ? undefined : scalar(object(keyValue['value'], 'value'));
    if (key !== '' && value !== undefined) attributes.set(key, value);
  }
  return {
    traceId: id(span, 'traceId'),
    spanId: id(span, 'spanId'),
    parentSpanId: id(span, 'parentSpanId'),
    name: text(span, 'name'),
    startTimeUnixNano: unixNano(span, 'startTimeUnixNano'),
    endTimeUnixNano: unixNano(span, 'endTimeUnixNano'),
    attributes,
  };
}

/** AnyValue's scalar case; undefined for the others (array, kvlist, bytes) and for a value of the wrong type. */
function scalar(value: Json): ScalarAttribute | undefined {
  const { stringValue, boolValue, intValue, doubleValue } = value;
  if (typeof stringValue === 'string') return stringValue;
  if (typeof boolValue === 'boolean') return boolValue;
  if (typeof intValue === 'number' && Number.isInteger(intValue)) return intValue;
  if (typeof intValue === 'string' && /^-?\d+$/.test(intValue)) return Number(intValue);
  if (typeof doubleValue === 'number') return doubleValue;
  // proto3 JSON writes NaN and the infinities as strings.
  if (typeof doubleValue === 'string' && /^(NaN|-?Infinity|-?[\d.e+-]+)$/i.test(doubleValue))
    return Number(doubleValue);
  return undefined;
}
