// Proxy plugin: every request outside the gateway's own endpoints lands here. The path is canonicalized, the
// upstream chosen by model (never by Host or an absolute-form target), auth swapped, and the request handed to
// @fastify/reply-from with the gateway's own undici dispatchers (TLS verified). The response is forwarded by
// forward-response.ts; failures before a response become coded 502/504 errors.
import { performance } from 'node:perf_hooks';
import replyFrom from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Dispatcher } from 'undici';
import { canonicalizeClientPath, KNOWN_ENDPOINTS } from '../src/gateway/client-path.js';
import type { GatewayContext } from '../src/gateway/context.js';
import { GatewayError, upstreamFailure } from '../src/gateway/errors.js';
import { forwardResponse } from '../src/gateway/forward-response.js';
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
import { sendGatewayError } from '../src/gateway/send-error.js';
import { applyUpstreamAuth } from '../src/gateway/upstream-auth.js';
import { kUpstreamCall, type UpstreamCall, upstreamClient } from '../src/gateway/upstream-client.js';
import { upstreamAuthFor } from '../src/protocols/index.js';

export interface ProxyPluginOptions {
  readonly context: GatewayContext;
}

const ACCEPTED = `${KNOWN_ENDPOINTS.map((e) => `/v1/${e}`).join(', ')} (and any other /v1/... path)`;
const TOTAL_TIMEOUT = 'TOKENMETER_TOTAL_TIMEOUT';
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

async function proxyPlugin(fastify: FastifyInstance, options: ProxyPluginOptions): Promise<void> {
  const { context } = options;
  const { config, routes } = context;
  const fixLog = new PathFixLog(fastify.log, context.pathFixListeners);
  await fastify.register(replyFrom, {
    undici: upstreamClient as unknown as { request: Dispatcher['request'] },
    disableRequestLogging: true,
  });

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
    if (context.shuttingDown) {
      throw new GatewayError('shutting_down', 'the gateway is shutting down: retry in a moment');
    }
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
    m.usageInjected = prepared?.usageInjected ?? false;
    const auth = upstreamAuthFor(path.endpoint);
    const target = `${upstream.base.origin}${upstream.base.apiPrefix}/${path.endpoint}`;
    m.pathSent = `${upstream.base.apiPrefix}/${path.endpoint}`;

    const controller = new AbortController();
    m.abortController = controller;
    const call: UpstreamCall = { dispatcher, signal: controller.signal, measurement: m };
    m.totalTimer = setTimeout(() => {
      controller.abort(Object.assign(new Error('total timeout'), { code: TOTAL_TIMEOUT }));
    }, upstream.timeouts.totalMs);
    m.upstreamRequestAt = performance.now();
    return reply.from(target, {
      ...(prepared === undefined
        ? {}
        : { body: prepared.bytes, contentType: request.headers['content-type'] ?? 'application/json' }),
      retryDelay: () => null,
      rewriteRequestHeaders: (_req, headers) => {
        const out: Record<string | symbol, unknown> = { ...headers };
        delete out['authorization'];
        delete out['x-api-key'];
        delete out['cookie'];
        for (const [name, value] of Object.entries(upstream.headers)) out[name] = value;
        applyUpstreamAuth(out, auth, upstream.key);
        out['x-request-id'] = request.id;
        out[kUpstreamCall] = call;
        return out as typeof headers;
      },
      onResponse: (_req, _reply, res) => {
        forwardResponse(request, reply, res as never, {
          timed: path.timed,
          // Chunk times feed the inter-token gap histogram; the record lists them only with records.gaps.
          keepChunkDetail: true,
          idleMs: upstream.timeouts.idleMs,
          hintContext: {
            path: m.pathSent ?? '',
            ...(m.modelSent === null ? {} : { model: m.modelSent }),
            ...(upstream.keyVariable === null ? {} : { keyVariable: upstream.keyVariable }),
          },
        });
      },
      onError: (_reply, { error }) => {
        if (m.outcome === 'client_abort') return;
        const cause = (error as { cause?: unknown }).cause ?? error;
        request.log.warn({ err: cause }, 'upstream request failed');
        sendGatewayError(request, reply, upstreamFailure(upstream, controller.signal.reason ?? cause));
      },
    });
  }

  fastify.route({ method: [...METHODS], url: '/*', handler: handle });
  fastify.setNotFoundHandler(handle);
}

export default fp(proxyPlugin, {
  name: 'tokenmeter-proxy',
  fastify: '5.x',
  dependencies: ['tokenmeter-measurement'],
});
