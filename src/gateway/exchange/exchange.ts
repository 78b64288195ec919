// One upstream exchange, the same for the primary (answering the client) and a mirror copy (measured and
// discarded, src/gateway/mirror/): startExchange builds what goes upstream (the body for that upstream's model,
// the client's headers less its credentials plus the upstream's own and its key, the request id and trace
// context), the metered handler with its options and the total deadline, and dispatches it; finishExchange turns
// the measurement into its frozen record and hands it to every sink. What differs between the two is only where
// the answer goes (the sink) and when the record is finished (the client's connection closing, or the copy's
// exchange settling).
import type { IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { type ExchangeSink, MeteredHandler, UNCONTROLLED } from '../../measure/metered-handler.js';
import { TOTAL_TIMEOUT_CODE } from '../../measure/network-failure.js';
import { type KnownProtocol, keyHeader, type UpstreamAuth, upstreamAuthOf } from '../../protocols/index.js';
import { deepFreeze } from '../../shared/json-object.js';
import { traceparentOf } from '../../shared/trace-context.js';
import type { ResolvedUpstream } from '../config/config-resolve.js';
import type { RequestMeasurement } from '../records/measurement.js';
import type { RecordSink, RequestRecord } from '../records/record.js';
import { type ParsedBody, upstreamBody } from '../request-path/request-body.js';
import { settleExchange } from './exchange-outcome.js';
import { forwardableRequestHeaders } from './hop-by-hop.js';
import type { KeyScrubber } from './key-scrubber.js';

/** Non-streamed bodies are kept (for usage and error text) up to this size; bigger ones pass unread. */
const MAX_KEPT_BODY_BYTES = 4 * 1024 * 1024;

/** What the client asked, as the gateway read it once: the same for the primary and its copy. */
export interface ClientRequest {
  readonly method: string;
  /** The canonical endpoint (`chat/completions`: what follows `/v1/`). */
  readonly endpoint: string;
  /** The endpoint's protocol as the route found it, once (client-path.ts): its family's, whose key header it takes. */
  readonly protocol: KnownProtocol | undefined;
  /** The endpoint is the protocol's own, so its answers are timed token by token (`messages`, not `messages/count_tokens`). */
  readonly timed: boolean;
  readonly body: ParsedBody | undefined;
  /** The client's query string with its `?`, or ''. */
  readonly query: string;
  readonly headers: IncomingHttpHeaders;
}

/** Where the exchange goes. */
export interface ExchangeTarget {
  readonly upstream: ResolvedUpstream;
  readonly dispatcher: Dispatcher;
  /** What the upstream receives in `model`; '' sends the client's. */
  readonly model: string;
  /** Ask a streamed answer for usage on the client's behalf (injectUsage, for protocols that need asking). */
  readonly injectUsage: boolean;
  /** Keep every gap between content chunks for the record (records.gaps); the metrics need only the meter's counts. */
  readonly keepGaps: boolean;
  readonly scrubber: KeyScrubber;
}

export interface ExchangeEnds {
  readonly sink: ExchangeSink;
  /** After the exchange settled and its outcome was concluded (settleExchange). */
  readonly onSettled?: (handler: MeteredHandler) => void;
}

function totalTimeout(): Error {
  return Object.assign(new Error('total timeout'), { code: TOTAL_TIMEOUT_CODE });
}

/** Sends `request` to `target` on `m`'s account: m gets the exchange's facts as they happen. */
export function startExchange(
  m: RequestMeasurement,
  request: ClientRequest,
  target: ExchangeTarget,
  ends: ExchangeEnds,
): MeteredHandler {
  const { upstream, scrubber } = target;
  const { body } = request;
  // The protocol whose stream is metered and whose answer is read; the family's auth applies either way.
  const protocol = request.timed ? request.protocol : undefined;
  const auth = upstreamAuthOf(request.protocol);
  m.upstream = upstream.name;
  m.protocol = protocol?.name ?? null;
  const prepared =
    body === undefined
      ? undefined
      : upstreamBody(body, target.model, target.injectUsage && protocol?.usageOnRequest === true);
  m.modelSent = target.model === '' ? m.modelAsked : target.model;
  if (m.modelSent !== null) m.price = upstream.prices.get(m.modelSent);
  m.usageInjected = prepared?.usageInjected ?? false;
  const pathSent = `${upstream.base.apiPrefix}/${request.endpoint}`;
  m.pathSent = pathSent;
  // The client's headers less its credentials and hop-by-hop fields (hop-by-hop.ts), then the upstream's own
  // headers and key, the request id and the gateway's span as the trace context.
  const headers = forwardableRequestHeaders(request.headers);
  // What the meter reads (an answer compressed anyway is decoded: src/measure/body-decoding.ts).
  headers['accept-encoding'] = 'identity';
  for (const [name, value] of Object.entries(upstream.headers)) headers[name] = value;
  applyUpstreamAuth(headers, auth, upstream.key);
  headers['x-request-id'] = m.requestId;
  headers['traceparent'] = traceparentOf(m.trace);
  if (m.traceState !== null) headers['tracestate'] = m.traceState;
  const idleMs = upstream.timeouts.idleMs;
  const hintContext = {
    path: pathSent,
    ...(m.modelSent === null ? {} : { model: m.modelSent }),
    ...(upstream.keySource === null ? {} : { keySource: upstream.keySource }),
  };
  const onSettled = ends.onSettled;
  const exchange = new MeteredHandler({
    classifier: protocol?.classifier,
    // A client that asked for a stream gets its answer metered whatever its content type, so a 200 HTML page
    // (a login wall, a misrouted base URL) is judged as the stream it failed to be, as the load generator does.
    meterEveryBody: m.stream,
    sink: ends.sink,
    // The gap histogram is fed from the meter's bucket counts: the gaps themselves are kept (up to the meter's
    // bound) only for a record that lists them.
    keepChunkDetail: target.keepGaps,
    keepText: false,
    removeUsageOnlyEvents: m.usageInjected,
    // Non-streamed bodies are kept where they are read: timed endpoints (usage) and errors (their text).
    keepBodyBytes: (status, streamed) =>
      !streamed && (protocol !== undefined || status >= 400) ? MAX_KEPT_BODY_BYTES : 0,
    onSettled: (h) => {
      settleExchange(m, h, { protocol, auth, idleMs, hintContext, scrubber });
      onSettled?.(h);
    },
  });
  m.exchange = exchange;
  m.totalTimer = setTimeout(() => exchange.abort(totalTimeout()), upstream.timeouts.totalMs);
  m.upstreamRequestAt = performance.now();
  try {
    target.dispatcher.dispatch(
      {
        origin: upstream.base.origin,
        path: `${pathSent}${request.query}`,
        method: request.method as Dispatcher.HttpMethod,
        headers,
        body: prepared?.bytes ?? null,
      },
      exchange,
    );
  } catch (error) {
    // A request undici refuses to start (a header it rejects) fails like one that found no upstream: the sink
    // answers or records it, never a throw into the caller.
    exchange.onResponseError(UNCONTROLLED, error instanceof Error ? error : new Error(String(error)));
  }
  return exchange;
}

/**
 * Ends `m` at `endAt` and hands its record, deeply frozen, to every sink: the one way a measurement becomes a
 * record. Its outcome must have been concluded by then (toRecord says so in the record when it was not).
 */
export function finishExchange(
  m: RequestMeasurement,
  endAt: number,
  recordGaps: boolean,
  sinks: readonly RecordSink[],
): RequestRecord {
  m.endAt = endAt;
  if (m.totalTimer !== null) clearTimeout(m.totalTimer);
  m.exchange?.meter?.end(endAt);
  // Frozen through and through: a sink can read every part of it and change none (about 1 us a record).
  const record = deepFreeze(m.toRecord(recordGaps));
  for (const sink of sinks) sink(record);
  return record;
}

// Puts the upstream's key on an outgoing request the way its protocol expects (src/protocols). The client's own
// credentials (`authorization`, `x-api-key`) were removed before, so only the gateway's key ever reaches the
// upstream.
export function applyUpstreamAuth(
  headers: Record<string | symbol, unknown>,
  auth: UpstreamAuth,
  key: string | null,
): void {
  if (key !== null) {
    const { name, value } = keyHeader(auth, key);
    headers[name] = value;
  }
  // An API that rejects requests without a version header gets the protocol's; clients that send one keep theirs.
  const version = auth.versionHeader;
  if (version !== null && headers[version.name] === undefined) headers[version.name] = version.value;
}
