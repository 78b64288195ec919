// The gateway's API path: every request that is not one of the gateway's own endpoints, as plain steps called
// from the server's `request` event (the assembly's serverFactory, plugins/index.ts), with nothing in front:
//
//   admit (drain) -> request id -> measurement (arrival stamped by the caller, as the server sees the request)
//   -> gateway key -> body, within maxBodyBytes -> route (path, model, upstream) -> exchange (exchange.ts)
//
// and, when the client's connection closes, the finish: the outcome of a cut request, the exchange aborted if it
// still runs, the record (exchange.ts's finisher). A refusal at any step is the gateway's coded error
// (errors.ts), answered and recorded like any other request. Finishing on the response's 'close' (not on its
// end) is what gives aborted and truncated requests a record too.

import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { KnownProtocol } from '../../protocols/index.js';
import { newSpan, parseTraceparent } from '../../shared/trace-context.js';
import { gatewayKeyRefusal } from '../config/gateway-keys.js';
import type { GatewayContext } from '../context.js';
import { ClientSink, sendGatewayError } from '../exchange/client-sink.js';
import { type ClientRequest, finishExchange, startExchange } from '../exchange/exchange.js';
import { streamCutReason } from '../exchange/exchange-outcome.js';
import type { LineLog } from '../logs/logger.js';
import { RequestMeasurement, recordedBody } from '../records/measurement.js';
import type { Admission } from '../serve/admission.js';
import { DRAIN_RETRY_AFTER_S } from '../serve/admission.js';
import { parserRefusal } from '../serve/client-errors.js';
import { conversationFacts } from '../sessions/conversation.js';
import { hasBody, readBody } from './body-read.js';
import { BodyScanner } from './body-scan.js';
import { canonicalizeClientPath, KNOWN_ENDPOINTS, PathFixLog } from './client-path.js';
import { GatewayError, upstreamFailure } from './errors.js';
import { listModels } from './models-list.js';
import { bodyModel, bodyStreams, type ParsedBody, parseBody } from './request-body.js';

const ACCEPTED = `${KNOWN_ENDPOINTS.map((e) => `/v1/${e}`).join(', ')} (and any other /v1/... path)`;

const CLIENT_GONE = Object.assign(new Error('the client closed the connection'), {
  code: 'TOKENMETER_CLIENT_GONE',
});

function tracestateOf(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  // Node joins repeated tracestate headers with ", ", which is how the spec combines them.
  return Array.isArray(header) ? header.join(',') : header;
}

/**
 * Node cuts a request not received within requestTimeoutMs by destroying its socket with this error. Its clock
 * starts at the request's first byte, a little before the gateway's, so comparing durations would call some of
 * these cuts client aborts.
 */
function cutForSlowness(request: IncomingMessage): boolean {
  const cause = request.socket?.errored as { code?: string } | null | undefined;
  return cause?.code === 'ERR_HTTP_REQUEST_TIMEOUT';
}

export class ApiPath {
  readonly #context: GatewayContext;
  readonly #admission: Admission;
  readonly #log: LineLog;
  readonly #fixLog: PathFixLog;

  constructor(context: GatewayContext, admission: Admission, log: LineLog) {
    this.#context = context;
    this.#admission = admission;
    this.#log = log;
    this.#fixLog = new PathFixLog(log, context.metrics);
  }

  /** One API request, received at `receivedAt` (performance.now() in the server's request event). */
  handle(request: IncomingMessage, response: ServerResponse, receivedAt: number): void {
    const context = this.#context;
    const admitted = this.#admission.admit(response);
    // An invalid traceparent is ignored and a new trace started; its tracestate then belongs to no trace we
    // continue, so it is dropped (W3C Trace Context 3.3.1).
    const headers = request.headers;
    const parent = parseTraceparent(headers['traceparent']);
    const traceState = parent === undefined ? null : tracestateOf(headers['tracestate']);
    const m = new RequestMeasurement(requestIdFrom(headers), receivedAt, newSpan(parent), traceState);
    m.method = request.method ?? 'GET';
    const url = request.url ?? '/';
    const queryAt = url.indexOf('?');
    m.pathAsked = queryAt < 0 ? url : url.slice(0, queryAt);
    const query = queryAt < 0 ? '' : url.slice(queryAt);
    context.state.inFlight++;
    // With the span receiver, the request is made known to the join now: its server's span may come first.
    context.spanReceiving?.expect(m);
    response.once('close', () => this.#finish(request, response, m));
    if (!admitted) {
      response.setHeader('retry-after', String(DRAIN_RETRY_AFTER_S));
      sendGatewayError(
        m,
        response,
        new GatewayError(
          'shutting_down',
          'the gateway is shutting down: retry, another instance will answer',
        ),
      );
      return;
    }
    const refusal = gatewayKeyRefusal(headers, context.config.gatewayKeys);
    if (refusal !== null) {
      sendGatewayError(m, response, refusal);
      return;
    }
    // Before the body is read: a method outside the API's list is answered here and never forwarded.
    if (!isApiMethod(m.method)) {
      response.setHeader('allow', ALLOW);
      sendGatewayError(
        m,
        response,
        new GatewayError('method_not_allowed', `${m.method.slice(0, 20)} is not an API method: use ${ALLOW}`),
      );
      return;
    }
    if (!hasBody(request)) {
      this.#route(request, response, m, query, undefined);
      return;
    }
    // Fed each chunk as it arrives; throws the 400 for a body nested too deep before the rest is read.
    const scanner = new BodyScanner();
    readBody(
      request,
      context.config.maxBodyBytes,
      (chunk) => scanner.push(chunk),
      (error, raw) => {
        if (error !== null) sendGatewayError(m, response, error);
        else this.#route(request, response, m, query, raw === undefined ? undefined : { raw, scanner });
      },
    );
  }

  /** Anything thrown past this point is the gateway's own failure: logged, answered 500, recorded. */
  #route(
    request: IncomingMessage,
    response: ServerResponse,
    m: RequestMeasurement,
    query: string,
    read: { readonly raw: Buffer; readonly scanner: BodyScanner } | undefined,
  ): void {
    try {
      const body = read === undefined ? undefined : parseBody(read.raw, read.scanner);
      this.#exchange(request, response, m, query, body);
    } catch (error) {
      this.#failed(response, m, error);
    }
  }

  #failed(response: ServerResponse, m: RequestMeasurement, error: unknown): void {
    const known = error instanceof GatewayError ? error : null;
    if (known === null || known.code === 'internal_error') {
      this.#log.error({ requestId: m.requestId, err: error }, 'request failed inside the gateway');
    }
    sendGatewayError(
      m,
      response,
      known ??
        new GatewayError('internal_error', 'the gateway failed on this request; see its log for the cause', {
          cause: error,
        }),
    );
  }

  #exchange(
    request: IncomingMessage,
    response: ServerResponse,
    m: RequestMeasurement,
    query: string,
    body: ParsedBody | undefined,
  ): void {
    const context = this.#context;
    const { config, routes } = context;
    const path = canonicalizeClientPath(m.pathAsked);
    if (path.kind === 'traversal') {
      throw new GatewayError(
        'path_traversal',
        "paths with '.' or '..' segments (plain or percent-encoded) are refused",
      );
    }
    if (path.kind === 'outside') {
      throw new GatewayError(
        'path_not_found',
        `no API at ${m.pathAsked.slice(0, 200)}: this gateway serves ${ACCEPTED}`,
      );
    }
    m.pathFixes = path.fixes;
    if (path.fixes.length > 0) this.#fixLog.note(m.pathAsked, `/v1/${path.endpoint}`, path.fixes);

    if (config.recordBodies && body !== undefined) m.body = recordedBody(body.raw);
    const model = bodyModel(body);
    m.modelAsked = model ?? null;
    m.stream = bodyStreams(body);
    if (
      m.method === 'GET' &&
      path.endpoint === 'models' &&
      (config.upstreams.length > 1 || routes.known.length > 0)
    ) {
      this.#listModels(response, m);
      return;
    }
    const route = routes.route(model);
    const upstream = route.upstream;
    const dispatcher = context.dispatchers.get(upstream);
    if (dispatcher === undefined) throw new GatewayError('internal_error', 'no dispatcher for upstream');
    const asked: ClientRequest = {
      method: m.method,
      endpoint: path.endpoint,
      protocol: path.protocol,
      timed: path.timed,
      body,
      query,
      headers: request.headers,
    };
    const sink = new ClientSink(
      m,
      response,
      (cause) => upstreamFailure(upstream, cause),
      context.scrubber,
      this.#log,
      (cause) => streamCutReason(cause, upstream.name, upstream.timeouts.idleMs),
    );
    startExchange(
      m,
      asked,
      {
        upstream,
        dispatcher,
        model: route.upstreamModel,
        injectUsage: config.injectUsage,
        keepGaps: config.recordGaps,
        scrubber: context.scrubber,
      },
      { sink },
    );
    // After the primary is on its way: placing it in its session delays nothing the client waits for.
    if (path.timed) this.#placeInSession(m, request, body, path.protocol ?? null);
    // After the primary is on its way, never before: the copy costs the client nothing but this call.
    if (route.mirror !== null) context.mirrors.consider(route.mirror, { primary: m, request: asked });
  }

  #placeInSession(
    m: RequestMeasurement,
    request: IncomingMessage,
    body: ParsedBody | undefined,
    protocol: KnownProtocol | null,
  ): void {
    // The request is already on its way: whatever happens here must not answer it a second time.
    try {
      const field = protocol?.conversationField ?? null;
      const conversation = body === undefined || field === null ? undefined : conversationFacts(body, field);
      m.toolResults = conversation?.toolResults ?? null;
      m.session = this.#context.sessions.begin(request.headers, conversation, m.receivedAt) ?? null;
      // After the session: a request placed by its conversation's hashes has them computed already.
      m.promptPrefixes =
        (protocol === null ? undefined : conversation?.promptPrefixes(protocol.family)) ?? null;
    } catch (error) {
      this.#log.error({ requestId: m.requestId, err: error }, 'placing the request in its session failed');
    }
  }

  #listModels(response: ServerResponse, m: RequestMeasurement): void {
    listModels(this.#context, m.requestId).then(
      (list) => {
        m.conclude('ok');
        if (response.destroyed) return;
        // Built from upstream answers and already scrubbed of keys (models-list.ts).
        const body = list;
        response.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(body),
          'x-request-id': m.requestId,
        });
        response.end(body);
      },
      (error: unknown) => this.#failed(response, m, error),
    );
  }

  /** The client's connection closed: the request is over, whatever state it was in. */
  #finish(request: IncomingMessage, response: ServerResponse, m: RequestMeasurement): void {
    const context = this.#context;
    const endAt = performance.now();
    this.#admission.release(response);
    if (!response.writableFinished) {
      // A request whose body Node's parser refused (a bad chunk size): the client got its 400 (client-errors.ts).
      const refusal = parserRefusal(request.socket);
      if (context.state.cutReason !== null) {
        m.conclude('truncated', context.state.cutReason);
      } else if (refusal !== null) {
        m.status = refusal.status;
        m.conclude('rejected', refusal.message);
      } else if (cutForSlowness(request)) {
        m.conclude(
          'rejected',
          `the client did not send its whole request within clientLimits.requestTimeoutMs (${context.config.clientLimits.requestTimeoutMs} ms); answered 408`,
        );
      } else if (m.exchange?.endAtFinalEvent(CLIENT_GONE) !== true) {
        // A client that closed once the stream's final event reached it (the openai package stops at
        // `data: [DONE]`) got the whole answer: its exchange ended there, with the answer's outcome.
        m.conclude('client_abort');
      }
      // Abort whatever still runs upstream: the client is gone, so it is wasted work.
      m.exchange?.abort(CLIENT_GONE);
    }
    if (m.status === 0 && response.headersSent) m.status = response.statusCode;
    context.state.inFlight--;
    finishExchange(m, endAt, context.config.recordGaps, context.sinks);
    if (m.session !== null) context.sessions.end(m.session, endAt, m.responseId());
  }
}

// Every request's id, sent back in `x-request-id` on every answer and upstream with the request: the client's own
// when it sent a usable one, so a client can find the record and log line of any request it made.
const USABLE_ID = /^[\w.:@/+=-]{1,128}$/;

/** The client's `x-request-id` when it is short and plain (no log injection), else a new UUID. */
export function requestIdFrom(headers: IncomingHttpHeaders): string {
  const given = headers['x-request-id'];
  return typeof given === 'string' && USABLE_ID.test(given) ? given : randomUUID();
}

// The methods the API answers, one list: what OpenAI- and Anthropic-style APIs use (GET, POST, DELETE for files,
// batches and stored responses; PUT and PATCH for the few that update), plus HEAD (Fastify answers it with GET's
// route) and OPTIONS (preflights). Any other method (TRACE, CONNECT's relatives, WebDAV's PROPFIND, MKCOL, LOCK,
// SEARCH, cache PURGE, QUERY...) is answered by the gateway with 405 and `Allow`, and never forwarded: an upstream
// that honours TRACE echoes the request it received, the injected upstream key included.
export const API_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** Routed explicitly; HEAD comes with GET's route. */
export const ROUTED_METHODS = API_METHODS.filter((m) => m !== 'HEAD');

/** The `Allow` header of a 405. */
export const ALLOW = API_METHODS.join(', ');

const ALLOWED: ReadonlySet<string> = new Set(API_METHODS);

export function isApiMethod(method: string): boolean {
  return ALLOWED.has(method);
}
