// The gateway's sink for a metered exchange: the client's own HTTP response. The upstream's status and headers
// are written the moment they arrive, with the first chunk or flushed alone in the same tick (the client's TTFB
// is the upstream's), then every chunk as undici hands it over. When the client's socket is full the metered
// handler pauses undici's read until it drains, so a slow client slows the upstream read instead of growing
// memory. A failure before the response started becomes the gateway's coded error; after it started, the client's
// stream is cut too, so the client never mistakes a partial answer for a complete one; an event stream is first
// told why in a comment line of the gateway's own (STREAM_CUT_COMMENT), which SSE clients skip and bench reads.
// Headers and bodies reach the client with the gateway's keys scrubbed (key-scrubber.ts says which bytes and why);
// trailers are not forwarded. The gateway's own error answers are written to the client here too
// (sendGatewayError, at the end).
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { ExchangeSink } from '../../measure/metered-handler.js';
import { GATEWAY_HEADER, GATEWAY_HEADER_VALUE, STREAM_CUT_COMMENT } from '../../shared/package-version.js';
import type { LineLog } from '../logs/logger.js';
import type { RequestMeasurement } from '../records/measurement.js';
import type { GatewayError } from '../request-path/errors.js';
import { forwardableResponseHeaders } from './hop-by-hop.js';
import type { KeyScrubber, ScrubbedStream } from './key-scrubber.js';

const LF = 0x0a;
/** How long the reason line may take to reach the client's socket before the cut goes ahead without it. */
const CUT_NOTE_FLUSH_MS = 1000;
const MAX_CUT_REASON_CHARS = 300;
const EVENT_STREAM = /^\s*text\/event-stream/i;

function flushHead(sink: ClientSink): void {
  sink.flushHead();
}

export class ClientSink implements ExchangeSink {
  readonly #m: RequestMeasurement;
  readonly #raw: ServerResponse;
  /** Turns a failure before the response started into the client-facing error. */
  readonly #failure: (cause: unknown) => GatewayError;
  readonly #scrubber: KeyScrubber;
  readonly #log: LineLog;
  /** Set in head() when this response's bytes are scrubbed. */
  #scrubbed: ScrubbedStream | null = null;
  /** Something was written after the head (which then went with it). */
  #bodyStarted = false;
  /** The upstream answered with an event stream: a cut is explained in a comment line before it. */
  #eventStream = false;
  /** The last byte written, so the reason line starts on a line of its own. */
  #lastByte = LF;
  /** Why a started response was cut, in one line (exchange-outcome.ts's streamCutReason). */
  readonly #cutReason: (cause: unknown) => string;

  constructor(
    m: RequestMeasurement,
    response: ServerResponse,
    failure: (cause: unknown) => GatewayError,
    scrubber: KeyScrubber,
    log: LineLog,
    cutReason: (cause: unknown) => string,
  ) {
    this.#cutReason = cutReason;
    this.#m = m;
    this.#raw = response;
    this.#failure = failure;
    this.#scrubber = scrubber;
    this.#log = log;
  }

  head(status: number, upstreamHeaders: IncomingHttpHeaders, metered: boolean): void {
    // The upstream's headers less the hop-by-hop ones, which describe its connection, not this one (forwarding
    // `connection: keep-alive` would override a client that asked to close); then the gateway's own. Built once,
    // into the one object writeHead takes (a `connection: close` set while draining is merged in by Node).
    const headers = this.#scrubber.scrubHeaders(forwardableResponseHeaders(upstreamHeaders));
    headers['x-request-id'] = this.#m.requestId;
    headers[GATEWAY_HEADER] = GATEWAY_HEADER_VALUE;
    // Removing the usage chunk the gateway asked for on the client's behalf changes the length.
    if (metered && this.#m.usageInjected) delete headers['content-length'];
    // Every body is scrubbed when there are keys; its length may change with them replaced.
    if (this.#scrubber.active) {
      this.#scrubbed = this.#scrubber.stream();
      delete headers['content-length'];
    }
    this.#eventStream = EVENT_STREAM.test(String(upstreamHeaders['content-type'] ?? ''));
    this.#raw.writeHead(status, headers);
    // Sent with the first chunk when it came in the same read as the headers (undici hands both over in one
    // tick, as an upstream writing its head and first event together sends them): one write to the client's
    // socket instead of two. Otherwise they go alone before anything else runs, so the client's TTFB is still
    // the upstream's.
    process.nextTick(flushHead, this);
  }

  /** The head still waits for a first chunk (see head()): it goes alone. */
  flushHead(): void {
    if (!this.#bodyStarted && !this.#raw.destroyed) this.#raw.flushHeaders();
  }

  write(bytes: Buffer): boolean {
    const out = this.#scrubbed === null ? bytes : this.#scrubbed.push(bytes);
    // Nothing to write (all of it held back) is not a full socket.
    if (out.length === 0) return true;
    this.#bodyStarted = true;
    this.#lastByte = out[out.length - 1] as number;
    return this.#raw.write(out);
  }

  onDrain(resume: () => void): void {
    this.#raw.once('drain', resume);
  }

  end(): void {
    this.#bodyStarted = true;
    const held = this.#scrubbed === null ? null : this.#scrubbed.flush();
    if (held === null) this.#raw.end();
    else this.#raw.end(held);
  }

  fail(error: Error, responseStarted: boolean): void {
    if (responseStarted) {
      this.#cut(error);
      return;
    }
    const m = this.#m;
    if (m.outcome === 'client_abort') return;
    this.#log.warn({ requestId: m.requestId, err: error.cause ?? error }, 'upstream request failed');
    sendGatewayError(m, this.#raw, this.#failure(error));
  }

  /**
   * Cuts a started response. An event stream is told why first, in a comment line: after a complete line (a
   * partial event is never completed into a dispatchable one, and is discarded at the cut as before), and only when
   * the client's socket takes it now; the cut follows once it is written, or after CUT_NOTE_FLUSH_MS.
   */
  #cut(error: Error): void {
    const raw = this.#raw;
    if (!this.#eventStream || raw.destroyed || raw.writableNeedDrain) {
      raw.destroy();
      return;
    }
    const reason = this.#cutReason(error)
      .replace(/[\r\n]+/g, ' ')
      .slice(0, MAX_CUT_REASON_CHARS);
    const line = `${this.#lastByte === LF ? '' : '\n'}${STREAM_CUT_COMMENT}${reason}\n`;
    const fallback = setTimeout(() => raw.destroy(), CUT_NOTE_FLUSH_MS);
    fallback.unref();
    raw.write(line, () => {
      clearTimeout(fallback);
      raw.destroy();
    });
  }
}

// Sends a gateway-originated error in OpenAI's format (request-path/errors.ts) and concludes the request's
// outcome with it. The gateway's own endpoints (served by Fastify) answer their errors with the same head.
/** The head of every error answer the gateway originates, for a body of `body`. */
export function errorHeaders(body: string): OutgoingHttpHeaders {
  return {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    [GATEWAY_HEADER]: GATEWAY_HEADER_VALUE,
  };
}

export function sendGatewayError(m: RequestMeasurement, response: ServerResponse, error: GatewayError): void {
  m.conclude(error.outcome, error.message);
  if (response.headersSent || response.destroyed) return;
  const body = error.toBody();
  const headers = errorHeaders(body);
  headers['x-request-id'] = m.requestId;
  response.writeHead(error.status, headers);
  response.end(body);
}
