// Decodes an OTLP ExportTraceServiceRequest in JSON (OTLP/HTTP's JSON encoding: lowerCamelCase field names,
// trace and span ids as hex strings, 64-bit integers as decimal strings or numbers) to the spans it carries.
// Unknown fields are ignored, as the OTLP specification asks of receivers. A body that is not JSON or whose
// structure is not the message's throws `OtlpJsonError`, answered with 400. A body must be parsed whole before
// any of it is read, and parsing costs by the value, so the body's values are counted first, by a scan that
// allocates nothing, and a body with more than maxJsonValues is refused (`ExportTooLargeError`) unparsed. Past
// that, the same limits as protobuf's, and yields between units of work as protobuf's decoder does.
import { Pace, type SlicedWork } from './decode-slices.js';
import { type DecodedExport, type ExportLimits, ExportTooLargeError } from './export-limits.js';
import type { ReceivedSpan, ScalarAttribute } from './received-span.js';

export class OtlpJsonError extends Error {}

type Json = Record<string, unknown>;

export function* decodeJsonTraceRequest(body: Buffer, limits: ExportLimits): SlicedWork<DecodedExport> {
  const elements = yield* countJsonElements(body, limits.maxJsonValues);
  if (elements > limits.maxJsonValues)
    throw new ExportTooLargeError(
      `the export holds more than ${limits.maxJsonValues} JSON values; send smaller batches`,
    );
  let request: unknown;
  try {
    request = JSON.parse(body.toString('utf8'));
  } catch {
    throw new OtlpJsonError('the body is not JSON');
  }
  yield;
  const spans: ReceivedSpan[] = [];
  let overLimit = 0;
  const pace = new Pace();
  for (const resourceSpans of list(object(request, 'request'), 'resourceSpans')) {
    for (const scopeSpans of list(object(resourceSpans, 'resourceSpans'), 'scopeSpans')) {
      if (pace.tick()) yield;
      const scopeSpanList = list(object(scopeSpans, 'scopeSpans'), 'spans');
      for (const span of scopeSpanList) {
        if (pace.tick()) yield;
        if (spans.length < limits.maxSpans)
          spans.push(readSpan(object(span, 'span'), limits.maxAttributesPerSpan));
        else overLimit++;
      }
    }
  }
  return { spans, overLimit };
}

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Bytes scanned between yields. */
const SCAN_SLICE_BYTES = 64 * 1024;

/**
 * The `{`, `[` and `,` outside strings, up to the first past `max`: every JSON value but the first of each
 * container follows a comma, so a body has at most twice this many values, plus one. Bytes that are not JSON are
 * left to the parser to refuse.
 */
function* countJsonElements(body: Buffer, max: number): SlicedWork<number> {
  let count = 0;
  let inString = false;
  let escaped = false;
  for (let start = 0; start < body.length; start += SCAN_SLICE_BYTES) {
    const end = Math.min(body.length, start + SCAN_SLICE_BYTES);
    for (let i = start; i < end; i++) {
      const byte = body[i] as number;
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) inString = false;
      } else if (byte === QUOTE) {
        inString = true;
      } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY || byte === COMMA) {
        if (++count > max) return count;
      }
    }
    yield;
  }
  return count;
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

function readSpan(span: Json, maxAttributes: number): ReceivedSpan {
  const attributes = new Map<string, ScalarAttribute>();
  for (const entry of list(span, 'attributes').slice(0, maxAttributes)) {
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
