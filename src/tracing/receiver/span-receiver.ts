// The built-in OTLP/HTTP trace receiver: `POST /v1/traces` in JSON or protobuf, gzipped or not, as OpenTelemetry
// exporters send it (vLLM's `--otlp-traces-endpoint` among them). Each span is offered to the join, which keeps
// only those of requests measured here; the export itself, accepted, is passed on unchanged to the collector
// when one is configured. Answers follow OTLP/HTTP: 200 with ExportTraceServiceResponse (partial_success counts
// spans not kept anywhere, those past the span bound among them), 400 for a body that does not decode, 413 past the
// size bound, 415 for an encoding it does not speak, 503 with Retry-After when too many exports are being read at
// once. What an export may make it build is bounded by count too (export-limits.ts), and decoding runs one export
// at a time, in slices that leave the event loop to the gateway's streams (decode-slices.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OneAtATime, runInSlices } from './decode-slices.js';
import { decodedBody, readRawBody } from './export-body.js';
import type { ExportForwarder } from './export-forwarder.js';
import {
  DEFAULT_EXPORT_LIMITS,
  type DecodedExport,
  type ExportLimits,
  ExportTooLargeError,
} from './export-limits.js';
import { decodeJsonTraceRequest, OtlpJsonError } from './otlp-json-request.js';
import { decodeProtobufTraceRequest } from './otlp-protobuf-request.js';
import {
  exportAnswer,
  type OtlpAnswer,
  type OtlpEncoding,
  RPC_INVALID_ARGUMENT,
  RPC_RESOURCE_EXHAUSTED,
  RPC_UNAUTHENTICATED,
  RPC_UNAVAILABLE,
  statusAnswer,
} from './otlp-response.js';
import { ProtobufError } from './protobuf-reader.js';
import { hasValidIds, type ReceivedSpan } from './received-span.js';

export const TRACES_PATH = '/v1/traces';
/** 4 MiB: a batch of 512 spans (the SDKs' default batch size) with vLLM's attributes is about 300 KiB. */
export const DEFAULT_RECEIVER_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Exports read at once; with the body bound, what the receiver can hold in memory. */
export const DEFAULT_RECEIVER_MAX_CONCURRENT = 8;
/** An export's body must arrive whole within this: a batch of a few hundred KiB takes milliseconds. */
export const DEFAULT_RECEIVER_READ_TIMEOUT_MS = 10_000;

/** Where received spans go: true when the span joined a request measured here. */
export interface SpanSink {
  offer(span: ReceivedSpan): boolean;
}

export interface SpanReceiverOptions {
  readonly sink: SpanSink;
  readonly forwarder: ExportForwarder | null;
  readonly maxBodyBytes?: number;
  readonly maxConcurrent?: number;
  readonly readTimeoutMs?: number;
  /** What one export may make the receiver decode (export-limits.ts); the defaults unless a test says. */
  readonly limits?: ExportLimits;
  /** When set, an export must pass it (a bearer token), or is answered 401. */
  readonly authorize?: (authorization: string | undefined) => boolean;
}

/** Exports answered, by how. The values of `tokenmeter_span_receiver_exports_total{result}`. */
export const EXPORT_RESULTS = [
  'accepted',
  'bad_request',
  'too_large',
  'unsupported',
  'busy',
  'unauthorized',
  'incomplete',
] as const;
export type ExportResult = (typeof EXPORT_RESULTS)[number];

export interface SpanReceiverStats {
  readonly exports: Record<ExportResult, number>;
  /** Spans whose ids are not OTLP's sizes: refused (partial_success). */
  rejectedSpans: number;
  /** Spans past the span bound of their export: counted, not read (partial_success when no collector takes them). */
  overLimitSpans: number;
}

interface Refusal {
  readonly result: ExportResult;
  readonly answer: OtlpAnswer;
}

const UNSUPPORTED_TYPE: Refusal = {
  result: 'unsupported',
  answer: statusAnswer(
    415,
    'json',
    RPC_INVALID_ARGUMENT,
    'send OTLP as application/x-protobuf or application/json',
  ),
};

/** Which encoding a content-type names; undefined for any other. Parameters (charset) are ignored. */
function encodingOf(contentType: string | undefined): OtlpEncoding | undefined {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (type === 'application/json') return 'json';
  if (type === 'application/x-protobuf') return 'protobuf';
  return undefined;
}

function send(response: ServerResponse, answer: OtlpAnswer, closeConnection = false): void {
  const headers: Record<string, string | number> = {
    ...answer.headers,
    'content-length': answer.body.length,
  };
  if (closeConnection) headers['connection'] = 'close';
  response.writeHead(answer.status, headers);
  response.end(answer.body);
}

export class SpanReceiver {
  readonly stats: SpanReceiverStats = {
    exports: {
      accepted: 0,
      bad_request: 0,
      too_large: 0,
      unsupported: 0,
      busy: 0,
      unauthorized: 0,
      incomplete: 0,
    },
    rejectedSpans: 0,
    overLimitSpans: 0,
  };
  readonly #sink: SpanSink;
  readonly #forwarder: ExportForwarder | null;
  readonly #maxBodyBytes: number;
  readonly #maxConcurrent: number;
  readonly #readTimeoutMs: number;
  readonly #authorize: ((authorization: string | undefined) => boolean) | undefined;
  readonly #limits: ExportLimits;
  readonly #decodes = new OneAtATime();
  #reading = 0;

  constructor(options: SpanReceiverOptions) {
    this.#sink = options.sink;
    this.#forwarder = options.forwarder;
    this.#maxBodyBytes = options.maxBodyBytes ?? DEFAULT_RECEIVER_MAX_BODY_BYTES;
    this.#maxConcurrent = options.maxConcurrent ?? DEFAULT_RECEIVER_MAX_CONCURRENT;
    this.#readTimeoutMs = options.readTimeoutMs ?? DEFAULT_RECEIVER_READ_TIMEOUT_MS;
    this.#authorize = options.authorize;
    this.#limits = options.limits ?? DEFAULT_EXPORT_LIMITS;
  }

  /** Answers one request to TRACES_PATH; never throws. */
  readonly handle = (request: IncomingMessage, response: ServerResponse): void => {
    const encoding = encodingOf(request.headers['content-type']);
    const contentEncoding = request.headers['content-encoding']?.trim().toLowerCase();
    const refusal = this.#refusalOf(request, encoding, contentEncoding);
    // A missing encoding is always refused; checked here again so the type knows it.
    if (refusal !== null || encoding === undefined) {
      const { result, answer } = refusal ?? UNSUPPORTED_TYPE;
      this.stats.exports[result]++;
      send(response, answer, true);
      return;
    }
    this.#reading++;
    this.#receive(request, encoding, contentEncoding === 'gzip')
      .then(
        (answer) => {
          if (answer === null) response.destroy();
          else send(response, answer, answer.status !== 200);
        },
        () => response.destroy(),
      )
      .finally(() => {
        this.#reading--;
      });
  };

  /** Why an export is refused before its body is read, in the answer's encoding where one was named. */
  #refusalOf(
    request: IncomingMessage,
    encoding: OtlpEncoding | undefined,
    contentEncoding: string | undefined,
  ): Refusal | null {
    const answerEncoding = encoding ?? 'json';
    if (request.method !== 'POST') {
      const answer = statusAnswer(405, answerEncoding, RPC_INVALID_ARGUMENT, `${TRACES_PATH} takes POST`, {
        allow: 'POST',
      });
      return { result: 'unsupported', answer };
    }
    if (this.#authorize !== undefined && !this.#authorize(request.headers.authorization)) {
      const message = 'send the metrics token as "Authorization: Bearer <token>"';
      return {
        result: 'unauthorized',
        answer: statusAnswer(401, answerEncoding, RPC_UNAUTHENTICATED, message),
      };
    }
    if (encoding === undefined) return UNSUPPORTED_TYPE;
    if (contentEncoding !== undefined && contentEncoding !== 'gzip' && contentEncoding !== 'identity') {
      const message = 'send the body as is or gzipped';
      return { result: 'unsupported', answer: statusAnswer(415, encoding, RPC_INVALID_ARGUMENT, message) };
    }
    if (this.#reading >= this.#maxConcurrent) {
      const answer = statusAnswer(503, encoding, RPC_UNAVAILABLE, 'too many exports at once; retry', {
        'retry-after': '1',
      });
      return { result: 'busy', answer };
    }
    return null;
  }

  /** The answer to an export, or null when its body never came whole (no one to answer). */
  async #receive(
    request: IncomingMessage,
    encoding: OtlpEncoding,
    gzipped: boolean,
  ): Promise<OtlpAnswer | null> {
    const raw = await readRawBody(request, this.#maxBodyBytes, this.#readTimeoutMs);
    if (raw.kind === 'incomplete') {
      this.stats.exports.incomplete++;
      return null;
    }
    if (raw.kind !== 'ok') return this.#refused(raw.kind, encoding);
    const body = await decodedBody(raw.bytes, gzipped, this.#maxBodyBytes);
    if (body.kind === 'too_large') return this.#refused('too_large', encoding);
    if (body.kind !== 'ok')
      return this.#refused('malformed', encoding, body.kind === 'malformed' ? body.message : '');
    let decoded: DecodedExport;
    try {
      decoded = await this.#decodes.run(() =>
        runInSlices(
          encoding === 'json'
            ? decodeJsonTraceRequest(body.bytes, this.#limits)
            : decodeProtobufTraceRequest(body.bytes, this.#limits),
        ),
      );
    } catch (error) {
      if (error instanceof ExportTooLargeError) return this.#refused('too_large', encoding, error.message);
      if (!(error instanceof ProtobufError || error instanceof OtlpJsonError)) throw error;
      return this.#refused('malformed', encoding, `not an ExportTraceServiceRequest: ${error.message}`);
    }
    this.stats.exports.accepted++;
    this.#forwarder?.forward(
      raw.bytes,
      request.headers['content-type'] as string,
      request.headers['content-encoding'],
    );
    let invalid = 0;
    let unmatched = 0;
    for (const span of decoded.spans) {
      if (!hasValidIds(span)) invalid++;
      else if (!this.#sink.offer(span)) unmatched++;
    }
    this.stats.rejectedSpans += invalid;
    this.stats.overLimitSpans += decoded.overLimit;
    // Spans that joined no request, and spans past the bound, are still accepted when a collector gets them;
    // without one they are gone, and the exporter is told so.
    const kept = this.#forwarder !== null;
    const notKept = {
      invalid,
      unmatched: kept ? 0 : unmatched,
      overLimit: kept ? 0 : decoded.overLimit,
      maxSpans: this.#limits.maxSpans,
    };
    return exportAnswer(
      encoding,
      notKept.invalid + notKept.unmatched + notKept.overLimit,
      rejectionMessage(notKept),
    );
  }

  #refused(kind: 'too_large' | 'malformed', encoding: OtlpEncoding, message = ''): OtlpAnswer {
    if (kind === 'too_large') {
      this.stats.exports.too_large++;
      return statusAnswer(
        413,
        encoding,
        RPC_RESOURCE_EXHAUSTED,
        message || `the export is larger than ${this.#maxBodyBytes} bytes; send smaller batches`,
      );
    }
    this.stats.exports.bad_request++;
    return statusAnswer(400, encoding, RPC_INVALID_ARGUMENT, message);
  }
}

function rejectionMessage(notKept: {
  readonly invalid: number;
  readonly unmatched: number;
  readonly overLimit: number;
  readonly maxSpans: number;
}): string {
  const { invalid, unmatched, overLimit, maxSpans } = notKept;
  const parts: string[] = [];
  if (invalid > 0) parts.push(`${invalid} spans have trace or span ids of the wrong size`);
  if (unmatched > 0)
    parts.push(
      `${unmatched} spans belong to no request measured here and no collector is configured to take them`,
    );
  if (overLimit > 0)
    parts.push(
      `${overLimit} spans past the first ${maxSpans} of the export were not read; send smaller batches`,
    );
  return parts.join('; ');
}
