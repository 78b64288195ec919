// Measurement plugin: gives every request its measurement when it arrives and finalizes it exactly once, when
// the response closes. Finalizing on `reply.raw` 'close' (not Fastify's onResponse, which never fires for a
// cut stream) is what makes aborted and truncated requests produce a record too.
import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { parserRefusal } from '../src/gateway/client-errors.js';
import type { GatewayContext } from '../src/gateway/context.js';
import '../src/gateway/fastify-types.js';
import { finishExchange } from '../src/gateway/exchange.js';
import { RequestMeasurement } from '../src/gateway/measurement.js';
import { newSpan, parseTraceparent } from '../src/shared/trace-context.js';

export interface MeasurementPluginOptions {
  readonly context: GatewayContext;
}

/** The gateway's own endpoints: probes and scrapes are not traffic, so they get no record, metric or log line. */
export const OWN_ENDPOINTS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

const CLIENT_GONE = Object.assign(new Error('the client closed the connection'), {
  code: 'TOKENMETER_CLIENT_GONE',
});

/**
 * Node cuts a request not received within requestTimeoutMs by destroying its socket with this error. Its clock
 * starts at the request's first byte, a little before the gateway's, so comparing durations would call some of
 * these cuts client aborts.
 */
function cutForSlowness(request: FastifyRequest): boolean {
  const cause = request.raw.socket?.errored as { code?: string } | null | undefined;
  return cause?.code === 'ERR_HTTP_REQUEST_TIMEOUT';
}

function finalize(context: GatewayContext, request: FastifyRequest, reply: FastifyReply): void {
  const m = request.measurement;
  const raw = reply.raw;
  const endAt = performance.now();
  if (!raw.writableFinished && m.outcome === null) {
    // A request whose body Node's parser refused (a bad chunk size): the client got its 400 (client-errors.ts).
    const refusal = parserRefusal(request.raw.socket);
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
    } else {
      m.conclude('client_abort');
    }
  }
  // Abort whatever still runs upstream: the client is gone or the response is complete, so it is wasted work.
  if (!raw.writableFinished) m.exchange?.abort(CLIENT_GONE);
  if (m.status === 0 && raw.headersSent) m.status = raw.statusCode;
  if (m.ownEndpoint) return;
  context.state.inFlight--;
  finishExchange(m, endAt, context.config.recordGaps, context.sinks);
}

function tracestateOf(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  // Node joins repeated tracestate headers with ", ", which is how the spec combines them.
  return Array.isArray(header) ? header.join(',') : header;
}

async function measurementPlugin(fastify: FastifyInstance, options: MeasurementPluginOptions): Promise<void> {
  const { context } = options;
  fastify.decorateRequest('measurement', null as unknown as RequestMeasurement);
  fastify.addHook('onRequest', (request, reply, done) => {
    const receivedAt = performance.now();
    // An invalid traceparent is ignored and a new trace started; its tracestate then belongs to no trace we
    // continue, so it is dropped (W3C Trace Context 3.3.1).
    const parent = parseTraceparent(request.headers['traceparent']);
    const traceState = parent === undefined ? null : tracestateOf(request.headers['tracestate']);
    const m = new RequestMeasurement(request.id, receivedAt, newSpan(parent), traceState);
    m.method = request.method;
    const query = request.url.indexOf('?');
    m.pathAsked = query >= 0 ? request.url.slice(0, query) : request.url;
    m.ownEndpoint = OWN_ENDPOINTS.has(m.pathAsked);
    request.measurement = m;
    if (!m.ownEndpoint) context.state.inFlight++;
    reply.raw.once('close', () => finalize(context, request, reply));
    done();
  });
}

export default fp(measurementPlugin, { name: 'tokenmeter-measurement', fastify: '5.x' });
