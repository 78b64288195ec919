// What the receiver answers, in the encoding the exporter sent (OTLP/HTTP, "OTLP/HTTP Response"): on success an
// ExportTraceServiceResponse, with partial_success when some spans were rejected; on failure a google.rpc.Status
// with a message that says what was wrong. The protobuf forms are written by hand: two small messages of
// varints and strings.

export type OtlpEncoding = 'json' | 'protobuf';

export interface OtlpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

export const CONTENT_TYPES: Readonly<Record<OtlpEncoding, string>> = {
  json: 'application/json',
  protobuf: 'application/x-protobuf',
};

/** google.rpc.Code values the receiver uses in a Status. */
export const RPC_INVALID_ARGUMENT = 3;
export const RPC_RESOURCE_EXHAUSTED = 8;
export const RPC_UNAVAILABLE = 14;
export const RPC_UNAUTHENTICATED = 16;

/** 200 with ExportTraceServiceResponse; partial_success only when `rejected` > 0. */
export function exportAnswer(encoding: OtlpEncoding, rejected: number, message: string): OtlpAnswer {
  let body: Buffer;
  if (encoding === 'json') {
    body = Buffer.from(
      JSON.stringify(
        rejected === 0 ? {} : { partialSuccess: { rejectedSpans: String(rejected), errorMessage: message } },
      ),
    );
  } else if (rejected === 0) {
    body = Buffer.alloc(0);
  } else {
    // ExportTraceServiceResponse.partial_success (1) = ExportTracePartialSuccess { rejected_spans (1), error_message (2) }
    const partial = Buffer.concat([varintField(1, rejected), stringField(2, message)]);
    body = lengthDelimited(1, partial);
  }
  return { status: 200, headers: { 'content-type': CONTENT_TYPES[encoding] }, body };
}

/** An error status with a google.rpc.Status body { code (1), message (2) }. */
export function statusAnswer(
  status: number,
  encoding: OtlpEncoding,
  code: number,
  message: string,
  extraHeaders: Readonly<Record<string, string>> = {},
): OtlpAnswer {
  const body =
    encoding === 'json'
      ? Buffer.from(JSON.stringify({ code, message }))
      : Buffer.concat([varintField(1, code), stringField(2, message)]);
  return { status, headers: { 'content-type': CONTENT_TYPES[encoding], ...extraHeaders }, body };
}

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

function varintField(field: number, value: number): Buffer {
  return Buffer.concat([varint(field * 8), varint(value)]);
}

function lengthDelimited(field: number, bytes: Buffer): Buffer {
  return Buffer.concat([varint(field * 8 + 2), varint(bytes.length), bytes]);
}

function stringField(field: number, text: string): Buffer {
  return lengthDelimited(field, Buffer.from(text, 'utf8'));
}
