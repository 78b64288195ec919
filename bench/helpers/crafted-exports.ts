// OTLP trace exports built to cost a receiver the most per byte sent: as many spans (or other entries) as the
// body bound allows, each as small as its encoding can write it. They are valid ExportTraceServiceRequests, so a
// receiver that decodes everything before it counts anything pays for all of them. Used by
// bench/span-receiver-flood.ts and the tests that bound the receiver's memory and event loop.

/** Protobuf: a varint (lengths here stay far below 2^53). */
function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** Protobuf: field `field`, wire type 2, holding `inner`. */
function embedded(field: number, inner: Buffer): Buffer {
  return Buffer.concat([varint(field * 8 + 2), varint(inner.length), inner]);
}

/** The most empty entries of two bytes each (tag, zero length) that fit `maxBytes` once wrapped in `wrap`. */
function entriesWithin(maxBytes: number, field: number, wrap: (inner: Buffer) => Buffer): Buffer {
  const entry = Buffer.from([field * 8 + 2, 0]);
  let count = Math.floor(maxBytes / entry.length);
  for (;;) {
    const body = wrap(Buffer.alloc(count * entry.length));
    if (body.length <= maxBytes) {
      for (let i = 0; i < count; i++) entry.copy(body, body.length - (count - i) * entry.length);
      return body;
    }
    count -= Math.ceil((body.length - maxBytes) / entry.length);
  }
}

/**
 * ExportTraceServiceRequest { resource_spans (1) { scope_spans (2) { spans (2): empty × N } } }, N as many as
 * fit in `maxBytes` (2,097,146 in 4 MiB): the export that took a gateway from 83 to 691 MB.
 */
export function protobufEmptySpans(maxBytes: number): Buffer {
  return entriesWithin(maxBytes, 2, (spans) => embedded(1, embedded(2, spans)));
}

/** One span of N empty attributes (KeyValue, field 9), as many as fit. */
export function protobufEmptyAttributes(maxBytes: number): Buffer {
  return entriesWithin(maxBytes, 9, (attributes) => embedded(1, embedded(2, embedded(2, attributes))));
}

/** One resource of N empty scope_spans entries, as many as fit. */
export function protobufEmptyScopes(maxBytes: number): Buffer {
  return entriesWithin(maxBytes, 2, (scopes) => embedded(1, scopes));
}

/** {"resourceSpans":[{"scopeSpans":[{"spans":[{},{},...]}]}]}, as many spans as fit in `maxBytes`. */
export function jsonEmptySpans(maxBytes: number): Buffer {
  const head = '{"resourceSpans":[{"scopeSpans":[{"spans":[';
  const tail = ']}]}]}';
  const count = Math.floor((maxBytes - head.length - tail.length + 1) / 3);
  return Buffer.from(`${head}${'{},'.repeat(count - 1)}{}${tail}`);
}
