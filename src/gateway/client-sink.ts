// The gateway's sink for a metered exchange: the client's own HTTP response. The upstream's status and headers
// are written the moment they arrive, with the first chunk or flushed alone in the same tick (the client's TTFB
// is the upstream's), then every chunk as undici hands it over. When the client's socket is full the metered handler pauses undici's read until it
// drains, so a slow client slows the upstream read instead of growing memory. A failure before the response
// started becomes the gateway's coded error; after it started, the client's stream is cut too, so the client
// never mistakes a partial answer for a complete one. Headers and bodies reach the client with the gateway's keys
// scrubbed (key-scrubber.ts says which bytes and why); trailers are not forwarded.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { ExchangeSink } from '../measure/metered-handler.js';
import { GATEWAY_HEADER, GATEWAY_HEADER_VALUE } from '../shared/gateway-header.js';
import type { GatewayError } from './errors.js';
import { forwardableResponseHeaders } from './hop-by-hop.js';
import type { KeyScrubber, ScrubbedStream } from './key-scrubber.js';
import type { LineLog } from './logger.js';
import type { RequestMeasurement } from './measurement.js';
import { sendGatewayError } from './send-error.js';

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

  constructor(
    m: RequestMeasurement,
    response: ServerResponse,
    failure: (cause: unknown) => GatewayError,
    scrubber: KeyScrubber,
    log: LineLog,
  ) {
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
      this.#raw.destroy();
      return;
    }
    const m = this.#m;
    if (m.outcome === 'client_abort') return;
    this.#log.warn({ requestId: m.requestId, err: error.cause ?? error }, 'upstream request failed');
    sendGatewayError(m, this.#raw, this.#failure(error));
  }
}
