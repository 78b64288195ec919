// Forwards the upstream's response to the client byte for byte, chunk by chunk as it arrives, while the stream
// meter watches the same bytes on the side. Backpressure: when the client's socket is full, the upstream body is
// paused (and with it undici's socket read) until the client drains, so a slow client slows the upstream read
// instead of growing memory. An upstream cut or timeout mid-stream cuts the client's stream too, so the client
// never mistakes a partial answer for a complete one.
import type { OutgoingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { classifierFor } from '../measure/classifiers.js';
import { readJsonAnswer } from '../measure/json-answer.js';
import { StreamMeter } from '../measure/stream-meter.js';
import { answerOutcome, streamOutcome } from '../measure/stream-outcome.js';
import { networkFailure } from '../shared/network-failure.js';
import { type HintContext, hintForUpstreamStatus } from '../shared/upstream-hints.js';
import type { TimedEndpoint } from './endpoints.js';
import { GATEWAY_HEADER, GATEWAY_HEADER_VALUE } from './gateway-header.js';
import { deleteHopByHopHeaders } from './hop-by-hop.js';

export interface UpstreamResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly stream: Readable;
}

/** Non-streamed bodies are kept (for usage and error text) up to this size; bigger ones pass unread. */
const MAX_KEPT_BODY_BYTES = 4 * 1024 * 1024;

export interface ForwardOptions {
  /** The endpoint's row in TIMED_ENDPOINTS; undefined for untimed endpoints (models, embeddings...). */
  readonly timed: TimedEndpoint | undefined;
  readonly keepChunkDetail: boolean;
  readonly idleMs: number;
  readonly hintContext: HintContext;
}

export function forwardResponse(
  request: FastifyRequest,
  reply: FastifyReply,
  res: UpstreamResponse,
  options: ForwardOptions,
): void {
  const m = request.measurement;
  const body = res.stream;
  const raw = reply.raw;
  m.status = res.statusCode;
  if (Number.isNaN(m.headersAt)) m.headersAt = performance.now();
  const contentType = String(res.headers['content-type'] ?? '');
  const protocol = options.timed?.protocol;
  const classifier = protocol === undefined ? undefined : classifierFor(protocol);
  const sse = contentType.startsWith('text/event-stream');
  let meter: StreamMeter | null = null;
  if (sse && classifier !== undefined) {
    meter = new StreamMeter({
      classifier,
      keepChunkDetail: options.keepChunkDetail,
      removeUsageOnlyEvents: m.usageInjected,
    });
    m.meter = meter;
  }
  // Non-streamed bodies are kept only where they are read: timed endpoints (usage) and errors (their text).
  const kept: Buffer[] | null = !sse && (classifier !== undefined || res.statusCode >= 400) ? [] : null;
  let keptBytes = 0;

  // Hop-by-hop headers describe the upstream connection, not this one: forwarding the upstream's
  // `connection: keep-alive` would override a client that asked to close. They are deleted from a copy:
  // reply.removeHeader would also mark them removed on the raw response, and Node then frames the body by
  // closing the connection, so a cut stream would look complete to the client.
  const headers = reply.getHeaders() as OutgoingHttpHeaders;
  deleteHopByHopHeaders(headers);
  headers[GATEWAY_HEADER] = GATEWAY_HEADER_VALUE;
  // Removing the usage chunk changes the length.
  if (m.usageInjected && meter !== null) delete headers['content-length'];
  reply.hijack();
  raw.writeHead(res.statusCode, headers);
  // Send the headers now, not with the first body chunk: the client's TTFB is the upstream's.
  raw.flushHeaders();

  const resume = (): void => {
    body.resume();
  };
  body.on('data', (chunk: Buffer) => {
    const at = performance.now();
    const out = meter === null ? chunk : meter.onBytes(chunk, at);
    if (kept !== null && keptBytes + chunk.length <= MAX_KEPT_BODY_BYTES) {
      kept.push(chunk);
      keptBytes += chunk.length;
    }
    if (out.length > 0 && !raw.write(out)) {
      body.pause();
      raw.once('drain', resume);
    }
    m.forwardingMs += performance.now() - at;
  });
  body.once('end', () => {
    const at = performance.now();
    if (meter !== null) {
      const rest = meter.end(at);
      if (rest.length > 0) raw.write(rest);
    }
    settleOutcome(request, res.statusCode, kept, keptBytes);
    if (m.outcome === 'http_error') {
      const errorText = m.error ?? undefined;
      m.hint =
        hintForUpstreamStatus(res.statusCode, {
          ...options.hintContext,
          ...(errorText === undefined ? {} : { errorText }),
        }) ?? null;
    }
    raw.end();
  });
  body.once('error', (error: Error) => {
    meter?.end(performance.now());
    if (m.outcome === null) {
      const failure = networkFailure(error, true);
      m.outcome = failure.outcome;
      if (failure.kind === 'idle_timeout') {
        m.error = `upstream '${m.upstream}' sent nothing for ${options.idleMs} ms mid-response (timeouts.idleMs); the stream was cut`;
      } else if (failure.kind === 'total_timeout') {
        m.error = `upstream '${m.upstream}' did not finish within timeouts.totalMs; the stream was cut`;
      } else {
        m.error = `upstream '${m.upstream}' broke off the response (${failure.code ?? 'connection closed'})`;
      }
    }
    raw.destroy();
  });
}

// The outcome rule itself is src/measure/stream-outcome.ts, shared with the load generator and the doctor.
function settleOutcome(
  request: FastifyRequest,
  status: number,
  kept: Buffer[] | null,
  keptBytes: number,
): void {
  const m = request.measurement;
  if (m.outcome !== null) return;
  const timing = m.timing();
  const success = status >= 200 && status <= 299;
  if (timing === undefined && success && kept !== null && keptBytes > 0 && keptBytes < MAX_KEPT_BODY_BYTES) {
    m.json = readJsonAnswer(Buffer.concat(kept, keptBytes));
  }
  const verdict =
    timing === undefined ? answerOutcome(status, m.json ?? undefined) : streamOutcome(status, timing);
  m.outcome = verdict.outcome;
  if (verdict.outcome === 'http_error') {
    if (kept !== null && keptBytes > 0)
      m.error = Buffer.concat(kept, keptBytes).toString('utf8').slice(0, 2000);
  } else if (verdict.outcome !== 'ok') {
    m.error = verdict.upstreamMessage ?? verdict.reason;
  }
}
