// Assembles the gateway: a Fastify instance with one plugin per concern, sharing one GatewayContext.
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { pino } from 'pino';
import type { Dispatcher } from 'undici';
import gatewayAuth from '../../plugins/gateway-auth.js';
import health from '../../plugins/health.js';
import measurement from '../../plugins/measurement.js';
import metrics from '../../plugins/metrics.js';
import proxy from '../../plugins/proxy.js';
import records from '../../plugins/records.js';
import requestId, { requestIdFrom } from '../../plugins/request-id.js';
import type { GatewayConfig, ResolvedUpstream } from './config-resolve.js';
import type { GatewayContext } from './context.js';
import { GatewayError } from './errors.js';
import { ModelRoutes } from './model-routes.js';
import { sendGatewayError } from './send-error.js';
import { buildUpstreamDispatcher } from './upstream-dispatcher.js';

export interface Gateway {
  readonly app: FastifyInstance;
  readonly context: GatewayContext;
}

/** Header names (and key-bearing fields) pino replaces with [Redacted] wherever a log line carries them. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'err.headers.authorization',
];

export interface BuildOptions {
  /** A pino logger; defaults to JSON on stdout at the configured level, with keys redacted. */
  readonly logger?: FastifyBaseLogger;
}

function translateFastifyError(error: { code?: string; statusCode?: number; message: string }): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new GatewayError(
      'request_too_large',
      'the request body is larger than maxBodyBytes allows; send less or raise it',
    );
  }
  if (typeof error.code === 'string' && error.code.startsWith('FST_ERR_CTP')) {
    return new GatewayError(
      'invalid_request_body',
      'the request body could not be read; send JSON with a content-type',
    );
  }
  return new GatewayError('internal_error', 'the gateway failed on this request; see its log for the cause', {
    cause: error,
  });
}

export async function buildGateway(config: GatewayConfig, options: BuildOptions = {}): Promise<Gateway> {
  const dispatchers = new Map<ResolvedUpstream, Dispatcher>();
  for (const upstream of config.upstreams) dispatchers.set(upstream, buildUpstreamDispatcher(upstream));
  const context: GatewayContext = {
    config,
    routes: new ModelRoutes(config.upstreams),
    dispatchers,
    recordListeners: [],
    pathFixListeners: [],
    requestListeners: [],
    shuttingDown: false,
    cuttingConnections: false,
    inFlight: 0,
    records: null,
    metricsAddress: null,
  };
  const loggerInstance = options.logger ?? pino({ level: config.logLevel, redact: REDACTED_PATHS });
  const app = Fastify({
    loggerInstance,
    // The measurement plugin writes one line per request itself, when the response closes (cut streams too).
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    genReqId: requestIdFrom,
    bodyLimit: config.maxBodyBytes,
    // Long generations: never cut a response for taking long (the upstream timeouts govern that).
    requestTimeout: 0,
    keepAliveTimeout: 65_000,
    return503OnClosing: true,
  });
  app.setErrorHandler((error, request, reply) => {
    const translated = translateFastifyError(error as { code?: string; message: string });
    if (translated.code === 'internal_error')
      request.log.error({ err: error }, 'request failed inside the gateway');
    sendGatewayError(request, reply, translated);
  });
  await app.register(measurement, { context });
  await app.register(requestId);
  await app.register(gatewayAuth, { context });
  await app.register(records, { context });
  await app.register(metrics, { context });
  await app.register(health, { context });
  await app.register(proxy, { context });
  app.addHook('onClose', async () => {
    await Promise.all([...dispatchers.values()].map((d) => d.close()));
  });
  for (const warning of config.warnings) app.log.warn(warning);
  return { app, context };
}
