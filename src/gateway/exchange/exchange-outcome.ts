// How a proxied exchange ended, noted on the request's measurement once the metered handler settles: the
// outcome, the error text the client's record shows, the hint for an upstream HTTP error, and what a non-streamed
// JSON answer said (usage, finish reason). The rules themselves are shared with the load generator and the doctor:
// src/measure/stream-outcome.ts for an answer that ended, src/measure/network-failure.ts for a cut one. Failures
// before the response started were answered (and their outcome noted) by the client sink; a client that left was
// noted when its connection closed.
import { MAX_ERROR_MESSAGE_CHARS } from '../../measure/answer-facts.js';
import type { MeteredHandler } from '../../measure/metered-handler.js';
import { networkFailure } from '../../measure/network-failure.js';
import { answerOutcome, streamOutcome } from '../../measure/stream-outcome.js';
import { type KnownProtocol, keyHeaderShown, type UpstreamAuth } from '../../protocols/index.js';
import { type HintContext, hintForUpstreamStatus } from '../../shared/upstream-hints.js';
import type { RequestMeasurement } from '../records/measurement.js';
import type { KeyScrubber } from './key-scrubber.js';

export interface SettleContext {
  /** The endpoint's protocol; undefined for untimed endpoints (models, embeddings...). */
  readonly protocol: KnownProtocol | undefined;
  /** How the upstream takes its key (the endpoint's family's), for a 401's hint. */
  readonly auth: UpstreamAuth;
  readonly idleMs: number;
  readonly hintContext: HintContext;
  /** The upstream's text is scrubbed here, once: the record, the log line and every other sink take it from m. */
  readonly scrubber: KeyScrubber;
}

export function settleExchange(m: RequestMeasurement, h: MeteredHandler, context: SettleContext): void {
  m.status = h.status;
  if (m.outcome !== null) return;
  if (h.error !== null) {
    settleCut(m, h.error, context.idleMs);
    return;
  }
  const timing = m.timing();
  const success = h.status >= 200 && h.status <= 299;
  // Answers are what a POST gets: a GET of a timed path lists or fetches stored objects, not an answer.
  if (
    timing === undefined &&
    success &&
    context.protocol !== undefined &&
    h.keptWholeBody &&
    m.method === 'POST'
  ) {
    m.json = context.protocol.readAnswer(h.keptBody());
  }
  const verdict =
    timing === undefined ? answerOutcome(h.status, m.json ?? undefined) : streamOutcome(h.status, timing);
  if (verdict.outcome === 'http_error') {
    const body = h.keptBody();
    // Scrubbed before it is cut, so a key across the cut cannot leave a prefix behind.
    const error = body.length > 0 ? context.scrubber.scrubText(body.toString('utf8')).slice(0, 2000) : null;
    const hint =
      hintForUpstreamStatus(h.status, {
        ...context.hintContext,
        keyHeader: keyHeaderShown(context.auth),
        ...(error === null ? {} : { errorText: error }),
      }) ?? null;
    m.conclude('http_error', error, hint);
  } else if (verdict.outcome !== 'ok') {
    const message = verdict.upstreamMessage;
    // The meter capped the message at a bound, which may fall inside a key.
    m.conclude(
      verdict.outcome,
      message === null
        ? verdict.reason
        : context.scrubber.scrubText(message, message.length >= MAX_ERROR_MESSAGE_CHARS),
    );
  } else {
    m.conclude('ok');
  }
}

/** The response had started and was cut: by the upstream, by its idle timeout, or by the total deadline. */
function settleCut(m: RequestMeasurement, error: Error, idleMs: number): void {
  m.conclude(networkFailure(error, true).outcome, streamCutReason(error, m.upstream, idleMs));
}

/** Why a started response was cut, in one line: the record's error, and what the client is told before the cut. */
export function streamCutReason(error: unknown, upstream: string | null, idleMs: number): string {
  const failure = networkFailure(error, true);
  if (failure.kind === 'idle_timeout')
    return `upstream '${upstream}' sent nothing for ${idleMs} ms mid-response (timeouts.idleMs); the stream was cut`;
  if (failure.kind === 'total_timeout')
    return `upstream '${upstream}' did not finish within timeouts.totalMs; the stream was cut`;
  return `upstream '${upstream}' broke off the response (${failure.code ?? 'connection closed'})`;
}
