// Proxy plugin: every request outside the gateway's own endpoints lands here. The path is canonicalized, the
// upstream chosen by model (never by Host or an absolute-form target), auth swapped, and the request dispatched
// on that upstream's undici Agent (TLS verified) with one MeteredHandler, which times the exchange and hands the
// response to the client's socket (src/gateway/client-sink.ts). Failures before a response become coded 502/504
// errors. A route with a mirror then sends its copy (src/gateway/mirror/). @fastify/reply-from is not used: it
// would put a Node stream between undici and the meter and stamp the headers in a second layer; the dispatch
// handler is both the cheapest path and the most exact clock.
import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Dispatcher } from 'undici';
import { canonicalizeClientPath, KNOWN_ENDPOINTS } from '../src/gateway/client-path.js';
import { ClientSink } from '../src/gateway/client-sink.js';
import type { GatewayContext } from '../src/gateway/context.js';
import { GatewayError, upstreamFailure } from '../src/gateway/errors.js';
import { settleExchange } from '../src/gateway/exchange-outcome.js';
import { forwardableRequestHeaders } from '../src/gateway/hop-by-hop.js';
import { listModels } from '../src/gateway/models-list.js';
import { PathFixLog } from '../src/gateway/path-fix-log.js';
import { recordedBody } from '../src/gateway/recorded-body.js';
import {
  bodyModel,
  bodyStreams,
  type ParsedBody,
  parseBody,
  upstreamBody,
} from '../src/gateway/request-body.js';
import { applyUpstreamAuth } from '../src/gateway/upstream-auth.js';
import { MeteredHandler } from '../src/measure/metered-handler.js';
import { TOTAL_TIMEOUT_CODE } from '../src/measure/network-failure.js';
import { upstreamAuthFor } from '../src/protocols/index.js';
import { traceparentOf } from '../src/shared/trace-context.js';

export interface ProxyPluginOptions {
  readonly context: GatewayContext;
}

const ACCEPTED = `${KNOWN_ENDPOINTS.map((e) => `/v1/${e}`).join(', ')} (and any other /v1/... path)`;
/** Non-streamed bodies are kept (for usage and error text) up to this size; bigger ones pass unread. */
const MAX_KEPT_BODY_BYTES = 4 * 1024 * 1024;

function totalTimeout(): Error {
  return Object.assign(new Error('total timeout'), { code: TOTAL_TIMEOUT_CODE });
}
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

async function proxyPlugin(fastify: FastifyInstance, options: ProxyPluginOptions): Promise<void> {
  const { context } = options;
  const { config, routes } = context;
  const fixLog = new PathFixLog(fastify.log, context.metrics);

  // Bodies are read as bytes (any content type) so they can go upstream unchanged; JSON is parsed on the side.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: config.maxBodyBytes },
    (_req, body, done) => {
      done(null, body);
    },
  );

  async function handle(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const m = request.measurement;
    const path = canonicalizeClientPath(request.url);
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
    const canonical = `/v1/${path.endpoint}`;
    m.pathFixes = path.fixes;
    if (path.fixes.length > 0) fixLog.note(m.pathAsked, canonical, path.fixes);

    const raw = request.body;
    const body: ParsedBody | undefined = Buffer.isBuffer(raw) ? parseBody(raw) : undefined;
    if (config.recordBodies && body !== undefined) m.body = recordedBody(body.raw);
    const model = bodyModel(body);
    m.modelAsked = model ?? null;
    m.stream = bodyStreams(body);
    if (
      request.method === 'GET' &&
      path.endpoint === 'models' &&
      (context.config.upstreams.length > 1 || routes.known.length > 0)
    ) {
      return reply.send(await listModels(context, request.id));
    }
    const route = routes.route(model);
    const upstream = route.upstream;
    m.upstream = upstream.name;
    const dispatcher = context.dispatchers.get(upstream);
    if (dispatcher === undefined) throw new GatewayError('internal_error', 'no dispatcher for upstream');
    const prepared =
      body === undefined
        ? undefined
        : upstreamBody(body, route.upstreamModel, config.injectUsage && path.timed?.usageOnRequest === true);
    m.modelSent = model === undefined ? null : route.upstreamModel || model;
    if (m.modelSent !== null) m.price = upstream.prices.get(m.modelSent);
    m.usageInjected = prepared?.usageInjected ?? false;
    const auth = upstreamAuthFor(path.endpoint);
    const pathSent = `${upstream.base.apiPrefix}/${path.endpoint}`;
    m.pathSent = pathSent;

    const headers = forwardableRequestHeaders(request.headers);
    for (const [name, value] of Object.entries(upstream.headers)) headers[name] = value;
    applyUpstreamAuth(headers, auth, upstream.key);
    headers['x-request-id'] = request.id;
    headers['traceparent'] = traceparentOf(m.trace);
    if (m.traceState !== null) headers['tracestate'] = m.traceState;
    const query = request.url.indexOf('?');
    const idleMs = upstream.timeouts.idleMs;
    const hintContext = {
      path: pathSent,
      ...(m.modelSent === null ? {} : { model: m.modelSent }),
      ...(upstream.keySource === null ? {} : { keySource: upstream.keySource }),
    };
    const exchange = new MeteredHandler({
      classifier: path.timed?.classifier,
      // A client that asked for a stream gets its answer metered whatever its content type, so a 200 HTML page
      // (a login wall, a misrouted base URL) is judged as the stream it failed to be, as the load generator does.
      meterEveryBody: m.stream,
      sink: new ClientSink(request, reply, (cause) => upstreamFailure(upstream, cause), context.scrubber),
      // Chunk times feed the inter-token gap histogram; the record lists them only with records.gaps.
      keepChunkDetail: true,
      keepText: false,
      removeUsageOnlyEvents: m.usageInjected,
      // Non-streamed bodies are kept where they are read: timed endpoints (usage) and errors (their text).
      keepBodyBytes: (status, streamed) =>
        !streamed && (path.timed !== undefined || status >= 400) ? MAX_KEPT_BODY_BYTES : 0,
      onSettled: (h) =>
        settleExchange(m, h, { protocol: path.timed, idleMs, hintContext, scrubber: context.scrubber }),
    });
    m.exchange = exchange;
    m.totalTimer = setTimeout(() => exchange.abort(totalTimeout()), upstream.timeouts.totalMs);
    m.upstreamRequestAt = performance.now();
    dispatcher.dispatch(
      {
        origin: upstream.base.origin,
        path: query < 0 ? pathSent : `${pathSent}${request.url.slice(query)}`,
        method: request.method as Dispatcher.HttpMethod,
        headers,
        body: prepared?.bytes ?? null,
      },
      exchange,
    );
    // After the primary is on its way, never before: the copy costs the client nothing but this call.
    if (route.mirror !== null) {
      context.mirrors.consider(route.mirror, {
        primary: m,
        method: request.method,
        endpoint: path.endpoint,
        protocol: path.timed,
        body,
        query: query < 0 ? '' : request.url.slice(query),
        clientHeaders: request.headers,
      });
    }
    return reply;
  }

  fastify.route({ method: [...METHODS], url: '/*', handler: handle });
  fastify.setNotFoundHandler(handle);
}

export default fp(proxyPlugin, {
  name: 'tokenmeter-proxy',
  fastify: '5.x',
  dependencies: ['tokenmeter-measurement'],
});
