// The gateway's sink for a metered exchange: the client's own HTTP response. The upstream's status and headers
// are written and flushed the moment they arrive (the client's TTFB is the upstream's), then every chunk as
// undici hands it over. When the client's socket is full the metered handler pauses undici's read until it
// drains, so a slow client slows the upstream read instead of growing memory. A failure before the response
// started becomes the gateway's coded error; after it started, the client's stream is cut too, so the client
// never mistakes a partial answer for a complete one. Headers and bodies reach the client with the gateway's keys
// scrubbed (key-scrubber.ts says which bytes and why); trailers are not forwarded.
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ExchangeSink } from '../measure/metered-handler.js';
import { GATEWAY_HEADER, GATEWAY_HEADER_VALUE } from '../shared/gateway-header.js';
import type { GatewayError } from './errors.js';
import { forwardableResponseHeaders } from './hop-by-hop.js';
import type { KeyScrubber, ScrubbedStream } from './key-scrubber.js';
import { sendGatewayError } from './send-error.js';

export class ClientSink implements ExchangeSink {
  readonly #request: FastifyRequest;
  readonly #reply: FastifyReply;
  readonly #raw: ServerResponse;
  /** Turns a failure before the response started into the client-facing error. */
  readonly #failure: (cause: unknown) => GatewayError;
  readonly #scrubber: KeyScrubber;
  /** Set in head() when this response's bytes are scrubbed. */
  #scrubbed: ScrubbedStream | null = null;

  constructor(
    request: FastifyRequest,
    reply: FastifyReply,
    failure: (cause: unknown) => GatewayError,
    scrubber: KeyScrubber,
  ) {
    this.#request = request;
    this.#reply = reply;
    this.#raw = reply.raw;
    this.#failure = failure;
    this.#scrubber = scrubber;
  }

  head(status: number, upstreamHeaders: IncomingHttpHeaders, metered: boolean): void {
    // The upstream's headers less the hop-by-hop ones, which describe its connection, not this one (forwarding
    // `connection: keep-alive` would override a client that asked to close); then the gateway's own.
    const headers: OutgoingHttpHeaders = this.#scrubber.scrubHeaders(
      forwardableResponseHeaders(upstreamHeaders),
    );
    const own = this.#reply.getHeaders();
    for (const name in own) headers[name] = own[name];
    headers[GATEWAY_HEADER] = GATEWAY_HEADER_VALUE;
    // Removing the usage chunk the gateway asked for on the client's behalf changes the length.
    if (metered && this.#request.measurement.usageInjected) delete headers['content-length'];
    // Every body is scrubbed when there are keys; its length may change with them replaced.
    if (this.#scrubber.active) {
      this.#scrubbed = this.#scrubber.stream();
      delete headers['content-length'];
    }
    this.#reply.hijack();
    this.#raw.writeHead(status, headers);
    this.#raw.flushHeaders();
  }

  write(bytes: Buffer): boolean {
    const out = this.#scrubbed === null ? bytes : this.#scrubbed.push(bytes);
    // Nothing to write (all of it held back) is not a full socket.
    return out.length === 0 || this.#raw.write(out);
  }

  onDrain(resume: () => void): void {
    this.#raw.once('drain', resume);
  }

  end(): void {
    const held = this.#scrubbed === null ? null : this.#scrubbed.flush();
    if (held === null) this.#raw.end();
    else this.#raw.end(held);
  }

  fail(error: Error, responseStarted: boolean): void {
    if (responseStarted) {
      this.#raw.destroy();
      return;
    }
    const m = this.#request.measurement;
    if (m.outcome === 'client_abort') return;
    this.#request.log.warn({ err: error.cause ?? error }, 'upstream request failed');
    sendGatewayError(this.#request, this.#reply, this.#failure(error));
  }
}
