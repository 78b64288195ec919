// The wire-format reader on hand-written bytes: the cases the SDK's exporters do not produce but a sender may
// (negative int64, fields this decoder skips, every wire type), and the malformed ones it must refuse.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runToEnd } from '../../src/tracing/receiver/decode-slices.js';
import { DEFAULT_EXPORT_LIMITS } from '../../src/tracing/receiver/export-limits.js';
import { decodeProtobufTraceRequest } from '../../src/tracing/receiver/otlp-protobuf-request.js';
import { ProtobufError, ProtobufReader } from '../../src/tracing/receiver/protobuf-reader.js';

function varint(value: bigint): number[] {
  const bytes: number[] = [];
  let rest = BigInt.asUintN(64, value);
  while (rest >= 0x80n) {
    bytes.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  bytes.push(Number(rest));
  return bytes;
}

function field(number: number, wireType: number, payload: number[]): number[] {
  return [...varint(BigInt(number * 8 + wireType)), ...payload];
}

function embedded(number: number, payload: number[]): number[] {
  return field(number, 2, [...varint(BigInt(payload.length)), ...payload]);
}

test('varints up to ten bytes, int64 sign, fixed64 and doubles read as the format defines', () => {
  const bytes = Buffer.from([...varint(300n), ...varint(-7n), ...varint(2n ** 53n - 1n)]);
  const reader = new ProtobufReader(bytes);
  assert.equal(reader.varint(), 300);
  assert.equal(reader.int64(), -7);
  assert.equal(reader.varint(), 2 ** 53 - 1);
  assert.equal(reader.done, true);
  const fixed = Buffer.alloc(16);
  fixed.writeBigUInt64LE(1_764_000_000_123_456_789n, 0);
  fixed.writeDoubleLE(0.125, 8);
  const fixedReader = new ProtobufReader(fixed);
  assert.equal(fixedReader.fixed64(), 1_764_000_000_123_456_789n);
  assert.equal(fixedReader.double(), 0.125);
});

test('a span with fields of every wire type the decoder does not read keeps what it does read', () => {
  const traceId = Buffer.alloc(16, 0xab);
  const spanId = Buffer.alloc(8, 0x01);
  const parent = Buffer.alloc(8, 0x02);
  const attribute = [
    ...embedded(1, [...Buffer.from('gen_ai.usage.prompt_tokens')]),
    ...embedded(2, field(3, 0, varint(-5n))),
  ];
  const span = [
    ...embedded(1, [...traceId]),
    ...embedded(2, [...spanId]),
    ...embedded(3, [...Buffer.from('vendor=x')]), // trace_state: skipped
    ...embedded(4, [...parent]),
    ...embedded(5, [...Buffer.from('llm_request')]),
    ...field(6, 0, varint(2n)), // kind: skipped
    ...field(16, 5, [1, 0, 0, 0]), // flags, fixed32: skipped
    ...field(99, 1, [0, 0, 0, 0, 0, 0, 0, 0]), // a future fixed64 field: skipped
    ...embedded(9, attribute),
    ...embedded(9, [...embedded(1, [...Buffer.from('list')]), ...embedded(2, embedded(5, []))]), // array: left out
  ];
  const request = Buffer.from(embedded(1, [...embedded(1, []), ...embedded(2, embedded(2, span))]));
  const [decoded] = runToEnd(decodeProtobufTraceRequest(request, DEFAULT_EXPORT_LIMITS)).spans;
  assert.ok(decoded !== undefined);
  assert.equal(decoded.traceId, traceId.toString('hex'));
  assert.equal(decoded.spanId, '0101010101010101');
  assert.equal(decoded.parentSpanId, '0202020202020202');
  assert.equal(decoded.name, 'llm_request');
  assert.deepEqual([...decoded.attributes], [['gen_ai.usage.prompt_tokens', -5]]);
});

test('truncated, overlong, mistyped and group-encoded messages are refused with ProtobufError', () => {
  const cases: [string, number[]][] = [
    ['a length past the end', embedded(1, [1, 2, 3]).slice(0, -1)],
    ['a varint of eleven bytes', [0x08, ...Array(10).fill(0xff), 0x01]],
    ['resource_spans as a varint', field(1, 0, [5])],
    ['a group (wire type 3)', field(7, 3, [])],
    ['field number 0', [0x00, 0x00]],
    ['a varint cut short', [0x08, 0x80]],
  ];
  for (const [what, bytes] of cases) {
    assert.throws(
      () => runToEnd(decodeProtobufTraceRequest(Buffer.from(bytes), DEFAULT_EXPORT_LIMITS)),
      ProtobufError,
      what,
    );
  }
});
