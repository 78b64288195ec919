// The gateway's sink for a metered exchange: the client's own HTTP response. The upstream's status and headers
// are written and flushed the moment they arrive (the client's TTFB is the upstream's), then every chunk as
// undici hands it over. When the client's socket is full the metered handler pauses undici's read until it
// drains, so a slow client slows the upstream read instead of growing memory. A failure before the response
// started becomes the gateway's coded error; after it started, the client's stream is cut too, so the client
// never mistakes a partial answer for a complete one.
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ExchangeSink } from '../measure/metered-handler.js';
import type { GatewayError } from './errors.js';
import { GATEWAY_HEADER, GATEWAY_HEADER_VALUE } from './gateway-header.js';
import { forwardableResponseHeaders } from './hop-by-hop.js';
import { sendGatewayError } from './send-error.js';

export class ClientSink implements ExchangeSink {
  readonly #request: FastifyRequest;
  readonly #reply: FastifyReply;
  readonly #raw: ServerResponse;
  /** Turns a failure before the response started into the client-facing error. */
  readonly #failure: (cause: unknown) => GatewayError;

  constructor(request: FastifyRequest, reply: FastifyReply, failure: (cause: unknown) => GatewayError) {
    this.#request = request;
    this.#reply = reply;
    this.#raw = reply.raw;
    this.#failure = failure;
  }

  head(status: number, upstreamHeaders: IncomingHttpHeaders, metered: boolean): void {
    // The upstream's headers less the hop-by-hop ones, which describe its connection, not this one (forwarding
    // `connection: keep-alive` would override a client that asked to close); then the gateway's own.
    const headers: OutgoingHttpHeaders = forwardableResponseHeaders(upstreamHeaders);
    const own = this.#reply.getHeaders();
    for (const name in own) headers[name] = own[name];
    headers[GATEWAY_HEADER] = GATEWAY_HEADER_VALUE;
    // Removing the usage chunk the gateway asked for on the client's behalf changes the length.
    if (metered && this.#request.measurement.usageInjected) delete headers['content-length'];
    this.#reply.hijack();
    this.#raw.writeHead(status, headers);
    this.#raw.flushHeaders();
  }

  write(bytes: Buffer): boolean {
    return this.#raw.write(bytes);
  }

  onDrain(resume: () => void): void {
    this.#raw.once('drain', resume);
  }

  end(): void {
    this.#raw.end();
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
