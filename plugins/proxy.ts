// Proxy plugin: every request outside the gateway's own endpoints lands here. The path is canonicalized, the
// upstream chosen by model (never by Host or an absolute-form target), auth swapped, and the request dispatched
// on that upstream's undici Agent (TLS verified) with one MeteredHandler, which times the exchange and hands the
// response to the client's socket (src/gateway/client-sink.ts). Failures before a response become coded 502/504
// errors. A route with a mirror then sends its copy (src/gateway/mirror/). @fastify/reply-from is not used: it
// would put a Node stream between undici and the meter and stamp the headers in a second layer; the dispatch
// handler is both the cheapest path and the most exact clock.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ALLOW, isApiMethod, ROUTED_METHODS } from '../src/gateway/api-methods.js';
import { canonicalizeClientPath, KNOWN_ENDPOINTS } from '../src/gateway/client-path.js';
import { ClientSink } from '../src/gateway/client-sink.js';
import type { GatewayContext } from '../src/gateway/context.js';
import { GatewayError, upstreamFailure } from '../src/gateway/errors.js';
import { type ClientRequest, startExchange } from '../src/gateway/exchange.js';
import { listModels } from '../src/gateway/models-list.js';
import { PathFixLog } from '../src/gateway/path-fix-log.js';
import { recordedBody } from '../src/gateway/recorded-body.js';
import { bodyModel, bodyStreams, type ParsedBody, parseBody } from '../src/gateway/request-body.js';

export interface ProxyPluginOptions {
  readonly context: GatewayContext;
}

const ACCEPTED = `${KNOWN_ENDPOINTS.map((e) => `/v1/${e}`).join(', ')} (and any other /v1/... path)`;

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
      const list = await listModels(context, request.id);
      m.conclude('ok');
      return reply.type('application/json; charset=utf-8').send(list);
    }
    const route = routes.route(model);
    const upstream = route.upstream;
    const dispatcher = context.dispatchers.get(upstream);
    if (dispatcher === undefined) throw new GatewayError('internal_error', 'no dispatcher for upstream');
    const query = request.url.indexOf('?');
    const asked: ClientRequest = {
      method: request.method,
      endpoint: path.endpoint,
      protocol: path.timed,
      body,
      query: query < 0 ? '' : request.url.slice(query),
      headers: request.headers,
    };
    startExchange(
      m,
      asked,
      {
        upstream,
        dispatcher,
        model: route.upstreamModel,
        injectUsage: config.injectUsage,
        scrubber: context.scrubber,
      },
      { sink: new ClientSink(request, reply, (cause) => upstreamFailure(upstream, cause), context.scrubber) },
    );
    // After the primary is on its way, never before: the copy costs the client nothing but this call.
    if (route.mirror !== null) context.mirrors.consider(route.mirror, { primary: m, request: asked });
    return reply;
  }

  fastify.route({ method: [...ROUTED_METHODS], url: '/*', handler: handle });
  fastify.setNotFoundHandler(handle);
  // Before the body is read (Fastify would refuse a QUERY without a content type with its own 500): a method
  // outside the API's list is answered here, for every path, and never forwarded.
  fastify.addHook('onRequest', async (request, reply) => {
    if (isApiMethod(request.method)) return;
    reply.header('allow', ALLOW);
    throw new GatewayError(
      'method_not_allowed',
      `${request.method.slice(0, 20)} is not an API method: use ${ALLOW}`,
    );
  });
}

export default fp(proxyPlugin, {
  name: 'tokenmeter-proxy',
  fastify: '5.x',
  dependencies: ['tokenmeter-measurement'],
});
