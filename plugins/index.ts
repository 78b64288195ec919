// Assembles the gateway, sharing one GatewayContext built here, once: the configuration frozen, one dispatcher
// per upstream, the metrics and the records writer, and the fixed list of sinks each finished request goes to.
//
// The server is a plain node:http server whose `request` event is the one place a request enters: the API path
// (everything but the gateway's own endpoints) runs as plain steps from there
// (src/gateway/request-path/api-path.ts), with its arrival stamped as the server sees it and nothing in front of
// it; the gateway's own endpoints (/healthz, /readyz, /metrics on the API port) are handed to the Fastify
// application, which owns the server's life cycle (listen, close hooks in order: drain, records, metrics port) and
// serves them with one plugin per concern. Plugins import src/; nothing in src/ imports a plugin or Fastify.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import Fastify, { type FastifyBaseLogger, type FastifyReply, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { GatewayConfig, ResolvedUpstream } from '../src/gateway/config/config-resolve.js';
import type { Gateway, GatewayContext } from '../src/gateway/context.js';
import { errorHeaders } from '../src/gateway/exchange/client-sink.js';
import { KeyScrubber } from '../src/gateway/exchange/key-scrubber.js';
import { Mirrors } from '../src/gateway/exchange/mirrors.js';
import { buildUpstreamDispatcher } from '../src/gateway/exchange/upstream-dispatcher.js';
import { createGatewayLogger, requestLogSink } from '../src/gateway/logs/logger.js';
import { GatewayMetrics } from '../src/gateway/metrics/gateway-metrics.js';
import type { MetricsSource } from '../src/gateway/metrics/metrics-page.js';
import type { RecordSink, RequestRecord } from '../src/gateway/records/record.js';
import { ApiPath, requestIdFrom } from '../src/gateway/request-path/api-path.js';
import { GatewayError } from '../src/gateway/request-path/errors.js';
import { ModelRoutes } from '../src/gateway/request-path/model-routes.js';
import { type GatewayState, RECORDS_SETTLE_MS } from '../src/gateway/run-state.js';
import { Admission } from '../src/gateway/serve/admission.js';
import { watchClientErrors, watchRefusedConnections } from '../src/gateway/serve/client-errors.js';
import { SessionTable } from '../src/gateway/sessions/sessions.js';
import { gatewaySpanSink } from '../src/gateway/spans/gateway-span.js';
import { registerSpanReceiverMetrics } from '../src/gateway/spans/span-receiver-metrics.js';
import { SpanReceiving } from '../src/gateway/spans/span-receiving.js';
import { deepFreeze } from '../src/shared/json-object.js';
import { RecordsWriter } from '../src/shared/records-writer.js';
import { shownTracesUrl } from '../src/tracing/otlp-settings.js';
import type { SpanExport } from '../src/tracing/span-export.js';
import health from './health.js';
import metrics from './metrics.js';
import records from './records.js';

export interface BuildOptions {
  /** A pino logger; defaults to JSON on stdout at the configured level, with keys redacted. */
  readonly logger?: Logger;
  /** Also receives every finished request's record, after the gateway's own sinks (the demo, tests). */
  readonly onRecord?: (record: RequestRecord) => void;
  /** What /metrics shows instead of this process's registry (a cluster worker's: the whole gateway's). */
  readonly metricsSource?: MetricsSource;
}

/**
 * The gateway's own endpoints, served by Fastify: probes and scrapes are not traffic, so they get no record,
 * metric or log line. Every other path is the API path's (a wrong one is its 404, with a record).
 */
const OWN_ENDPOINTS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

function isOwnEndpoint(url: string | undefined): boolean {
  if (url === undefined) return false;
  const query = url.indexOf('?');
  return OWN_ENDPOINTS.has(query < 0 ? url : url.slice(0, query));
}

/** An own endpoint's error, in the gateway's error format (src/gateway/exchange/client-sink.ts). */
function ownEndpointError(reply: FastifyReply, error: GatewayError): void {
  if (reply.sent || reply.raw.destroyed) return;
  const body = error.toBody();
  reply.code(error.status).headers(errorHeaders(body)).send(body);
}

/**
 * The server reports itself closed as soon as its last connection is destroyed, but a destroyed socket emits
 * 'close' (which finalizes its request's record) only in a later phase of the event loop: without this wait,
 * the records of requests whose connections were cut (a second signal, the grace period, a 408) could reach the
 * records file after it closed.
 */
async function everyRequestRecorded(state: GatewayState): Promise<void> {
  const giveUpAt = performance.now() + RECORDS_SETTLE_MS;
  while (state.inFlight > 0 && performance.now() < giveUpAt) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function recordsWriter(config: GatewayConfig, log: FastifyBaseLogger): RecordsWriter<RequestRecord> | null {
  const file = config.recordsFile;
  if (file === null) return null;
  let warned = false;
  const writer = new RecordsWriter<RequestRecord>(file, (error) => {
    if (warned) return;
    warned = true;
    log.error(
      { err: error, file },
      `cannot write request records to ${file}: traffic continues, records are lost`,
    );
  });
  void writer.openNow(); // a failure is logged by the writer's onError above
  return writer;
}

/**
 * Span export when configured; its first lost span is logged once (the metric counts them all). The
 * OpenTelemetry SDK and its exporters are loaded only then: importing them grows a gateway by about 6 MB.
 */
async function spanExportOf(config: GatewayConfig, log: FastifyBaseLogger): Promise<SpanExport | null> {
  const settings = config.spanExport;
  if (settings === null) return null;
  const url = shownTracesUrl(settings);
  const { SpanExport } = await import('../src/tracing/span-export.js');
  return new SpanExport(settings, (why) =>
    log.warn(
      `spans are being lost: ${why} for the OTLP collector at ${url}; requests are unaffected, losses are counted in tokenmeter_spans_dropped_total`,
    ),
  );
}

export async function buildGateway(config: GatewayConfig, options: BuildOptions = {}): Promise<Gateway> {
  deepFreeze(config);
  const logger = options.logger ?? createGatewayLogger(config.logLevel);
  const dispatchers = new Map<ResolvedUpstream, Dispatcher>();
  for (const upstream of config.upstreams) dispatchers.set(upstream, buildUpstreamDispatcher(upstream));
  const routes = new ModelRoutes(config.upstreams);
  const { scrubber, warnings: scrubberWarnings } = KeyScrubber.forUpstreams(config.upstreams);
  const state = {
    shuttingDown: false,
    cutReason: null,
    graceEndsAt: null,
    inFlight: 0,
    mirrorsInFlight: 0,
    metricsAddress: null,
  };
  const writer = recordsWriter(config, logger);
  const spans = await spanExportOf(config, logger);
  const gatewayMetrics = new GatewayMetrics({
    configuredModels: routes.known.map((k) => k.name),
    maxModels: config.metricsMaxModels,
    state,
    records: writer,
    spans,
  });
  const writerSink: RecordSink | null = writer === null ? null : (record) => writer.add(record);
  const extraSink = options.onRecord ?? null;
  const sinks: RecordSink[] = [(record) => gatewayMetrics.observe(record)];
  const spanSink = spans === null ? null : gatewaySpanSink(spans, config.upstreams, config.genAiSemconv);
  let spanReceiving: SpanReceiving | null = null;
  if (config.spanReceiver === null) {
    if (writerSink !== null) sinks.push(writerSink);
    if (spanSink !== null) sinks.push(spanSink);
    sinks.push(requestLogSink(logger));
    if (extraSink !== null) sinks.push(extraSink);
  } else {
    // The records file and the caller's sink get the record once its server's span joined or its wait ended;
    // metrics, the exported span and the log line carry nothing of the server's span and never wait.
    const held = [writerSink, extraSink].filter((sink) => sink !== null);
    spanReceiving = new SpanReceiving(config.spanReceiver, config.metricsToken, held);
    registerSpanReceiverMetrics(gatewayMetrics.registry, spanReceiving);
    if (spanSink !== null) sinks.push(spanSink);
    sinks.push(requestLogSink(logger), spanReceiving.hold);
  }
  Object.freeze(sinks);
  const mirrors = new Mirrors({
    config,
    dispatchers,
    skipped: (reason) => gatewayMetrics.mirrorSkipped(reason),
    scrubber,
    state,
    sinks,
  });
  const context: GatewayContext = Object.freeze({
    config,
    routes,
    dispatchers,
    metrics: gatewayMetrics,
    scrubber,
    records: writer,
    sinks,
    mirrors,
    spanReceiving,
    sessions: new SessionTable(),
    state,
  });
  const limits = config.clientLimits;
  // The server's limits are set on the server itself. Receiving the request (headers and body) is bounded, so a
  // client trickling bytes cannot hold a connection; the response's duration is not (long generations are
  // governed by the upstream timeouts). Node checks for timed-out connections every connectionsCheckingInterval:
  // 30 s by default, far longer than the bound.
  const server = createServer({
    requestTimeout: limits.requestTimeoutMs,
    headersTimeout: limits.headersTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
  });
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  const admission = new Admission(server);
  const api = new ApiPath(context, admission, logger);
  let ownEndpoints: ((request: IncomingMessage, response: ServerResponse) => void) | null = null;
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    // The arrival stamp: as early as the gateway sees the request.
    const receivedAt = performance.now();
    if (ownEndpoints === null || !isOwnEndpoint(request.url)) {
      api.handle(request, response, receivedAt);
      return;
    }
    // Every answer carries the request's id; a probe during the drain is answered, on a closing connection.
    response.setHeader('x-request-id', requestIdFrom(request.headers));
    if (admission.admit(response)) response.once('close', () => admission.release(response));
    ownEndpoints(request, response);
  });
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // The API path's sinks write one line per request, when the response closes (cut streams too); probes and
    // scrapes write none.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    serverFactory: (handler) => {
      ownEndpoints = handler;
      return server;
    },
    // While draining, the API path answers requests on kept-alive connections itself: the gateway's error
    // format, Retry-After, and a record (Fastify's own 503 has none of them); own endpoints are still answered.
    return503OnClosing: false,
  });
  watchRefusedConnections(server, limits.maxConnections, gatewayMetrics, logger);
  watchClientErrors(server, gatewayMetrics);
  app.setErrorHandler((error, request, reply) => {
    const known = error instanceof GatewayError ? error : null;
    if (known === null) request.log.error({ err: error }, 'request failed inside the gateway');
    ownEndpointError(
      reply,
      known ??
        new GatewayError('internal_error', 'the gateway failed on this request; see its log for the cause', {
          cause: error,
        }),
    );
  });
  // An own endpoint's path with another method (POST /healthz): the same 404 as any path the gateway does not
  // serve.
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    ownEndpointError(
      reply,
      new GatewayError(
        'path_not_found',
        `no API at ${path.slice(0, 200)}: ${request.method} is not served there`,
      ),
    );
  });
  // Runs when the gateway closes, before it stops listening (the drain: admission.ts).
  app.addHook('preClose', (done) => {
    admission.drain();
    done();
  });
  await app.register(records, { context });
  await app.register(metrics, {
    context,
    ...(options.metricsSource === undefined ? {} : { source: options.metricsSource }),
  });
  await app.register(health, { context });
  // Runs first of the onClose hooks (they run last-registered first): before the records file is closed.
  app.addHook('onClose', async () => {
    await everyRequestRecorded(state);
    // Mirror copies are not client connections: closing the server does not wait for them, this does.
    await mirrors.close(config.shutdownGraceMs);
    await Promise.all([...dispatchers.values()].map((d) => d.close()));
    // The last spans, bounded by the export timeout (an unreachable collector cannot hold the shutdown).
    await spans?.shutdown();
    // Batched log lines (src/gateway/logs/logger.ts) are written before the gateway reports itself closed.
    logger.flush();
  });
  for (const warning of [...config.warnings, ...scrubberWarnings]) app.log.warn(warning);
  return { app, context };
}
