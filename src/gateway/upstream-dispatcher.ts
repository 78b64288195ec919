// The HTTP client side: one undici Agent per upstream, built at start with that upstream's timeouts, connection
// limit and CA bundle. TLS certificates are always verified (reply-from would otherwise turn verification off).
// A small interceptor stamps the moment undici takes the request off its queue to write it, so time spent
// queueing for a connection is measured apart from upstream latency.
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import { rootCertificates } from 'node:tls';
import { Agent, type Dispatcher } from 'undici';
import type { ResolvedUpstream } from './config-resolve.js';
import type { RequestMeasurement } from './measurement.js';

/** Carries the request's measurement through undici's dispatch options (symbols are not sent as headers). */
export const kMeasurement = Symbol('tokenmeter.measurement');

type IncomingHttpHeaders = Dispatcher.DispatchOptions['headers'] &
  Record<string, string | string[] | undefined>;

// Forwards every callback explicitly: undici's handlers are class instances, so spreading them loses methods.
class StampingHandler implements Dispatcher.DispatchHandler {
  readonly #next: Dispatcher.DispatchHandler;
  readonly #measurement: RequestMeasurement;
  constructor(next: Dispatcher.DispatchHandler, measurement: RequestMeasurement) {
    this.#next = next;
    this.#measurement = measurement;
  }
  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.#measurement.upstreamSocketWriteAt = performance.now();
    this.#next.onRequestStart?.(controller, context);
  }
  onRequestUpgrade(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    socket: Duplex,
  ): void {
    this.#next.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }
  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    statusMessage?: string,
  ): void {
    this.#measurement.headersAt = performance.now();
    this.#next.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }
  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#next.onResponseData?.(controller, chunk);
  }
  onResponseEnd(controller: Dispatcher.DispatchController, trailers: IncomingHttpHeaders): void {
    this.#next.onResponseEnd?.(controller, trailers);
  }
  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.#next.onResponseError?.(controller, error);
  }
}

const stampInterceptor: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
  const measurement = (opts as { [kMeasurement]?: RequestMeasurement })[kMeasurement];
  return dispatch(opts, measurement ? new StampingHandler(handler, measurement) : handler);
};

export function buildUpstreamDispatcher(upstream: ResolvedUpstream): Dispatcher {
  const { timeouts } = upstream;
  const agent = new Agent({
    connect: {
      timeout: timeouts.connectMs,
      rejectUnauthorized: true,
      // A configured CA is trusted in addition to the system's roots, not instead of them.
      ...(upstream.ca === null ? {} : { ca: [...rootCertificates, upstream.ca] }),
    },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.idleMs,
    ...(upstream.maxConnections > 0 ? { connections: upstream.maxConnections } : {}),
    keepAliveTimeout: 30_000,
  });
  return agent.compose(stampInterceptor);
}
