// The protobuf wire format (https://protobuf.dev/programming-guides/encoding/), read: just enough to walk the
// messages of an OTLP trace export. @opentelemetry/otlp-transformer (0.223) encodes requests and decodes only the
// exporter's *response*, so the receiver reads requests with this. Every read is bounds-checked and throws
// `ProtobufError` on a truncated or malformed message, which the receiver answers with 400.

export class ProtobufError extends Error {}

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LENGTH_DELIMITED = 2;
export const WIRE_FIXED32 = 5;

/** One field's tag: its number and how its value is laid out. */
export interface FieldTag {
  readonly field: number;
  readonly wireType: number;
}

export class ProtobufReader {
  /** The whole body; embedded messages' readers share it, each with its own range. */
  readonly #bytes: Buffer;
  #at: number;
  readonly #end: number;

  constructor(bytes: Uint8Array, start = 0, end = bytes.length) {
    this.#bytes = Buffer.isBuffer(bytes)
      ? bytes
      : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#at = start;
    this.#end = end;
  }

  get done(): boolean {
    return this.#at >= this.#end;
  }

  tag(): FieldTag {
    const tag = this.varint();
    const field = Math.floor(tag / 8);
    if (field === 0) throw new ProtobufError('field number 0');
    return { field, wireType: tag % 8 };
  }

  /**
   * A varint as a number: exact up to 2^53, which covers tags, lengths, enums and every count a span carries.
   * Negative int64 values (ten bytes) come out as large positives; `int64()` reads those.
   */
  varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const byte = this.#byte();
      value += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return value;
      scale *= 128;
    }
    throw new ProtobufError('varint longer than 10 bytes');
  }

  /** A varint read as a signed 64-bit integer (int64), converted to the nearest number. */
  int64(): number {
    let value = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      const byte = this.#byte();
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return Number(BigInt.asIntN(64, value));
      shift += 7n;
    }
    throw new ProtobufError('varint longer than 10 bytes');
  }

  /** fixed64, unsigned (OTLP's *_time_unix_nano). */
  fixed64(): bigint {
    return this.#bytes.readBigUInt64LE(this.#take(8));
  }

  double(): number {
    return this.#bytes.readDoubleLE(this.#take(8));
  }

  /** A length-delimited field's bytes as lower-case hex (OTLP's ids). */
  hex(): string {
    const length = this.varint();
    const at = this.#take(length);
    return this.#bytes.toString('hex', at, at + length);
  }

  string(): string {
    const length = this.varint();
    const at = this.#take(length);
    return this.#bytes.toString('utf8', at, at + length);
  }

  /** A reader over an embedded message, sharing this one's bytes. */
  message(): ProtobufReader {
    const length = this.varint();
    const at = this.#take(length);
    return new ProtobufReader(this.#bytes, at, at + length);
  }

  /** Passes over a field this decoder does not need. Groups (wire types 3 and 4) are long deprecated: refused. */
  skip(wireType: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.varint();
        return;
      case WIRE_FIXED64:
        this.#take(8);
        return;
      case WIRE_LENGTH_DELIMITED:
        this.#take(this.varint());
        return;
      case WIRE_FIXED32:
        this.#take(4);
        return;
      default:
        throw new ProtobufError(`unsupported wire type ${wireType}`);
    }
  }

  #byte(): number {
    if (this.#at >= this.#end) throw new ProtobufError('message ends inside a field');
    return this.#bytes[this.#at++] as number;
  }

  /** Advances over `length` bytes, returning where they start. */
  #take(length: number): number {
    if (length > this.#end - this.#at) throw new ProtobufError('message ends inside a field');
    const at = this.#at;
    this.#at += length;
    return at;
  }
}

/** Throws unless a field's wire type is the one its schema says: a mismatch means the bytes are not this message. */
export function expectWireType(tag: FieldTag, wireType: number): void {
  if (tag.wireType !== wireType)
    throw new ProtobufError(`field ${tag.field} has wire type ${tag.wireType}, expected ${wireType}`);
}
