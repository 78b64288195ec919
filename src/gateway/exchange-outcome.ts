// How a proxied exchange ended, noted on the request's measurement once the metered handler settles: the
// outcome, the error text the client's record shows, the hint for an upstream HTTP error, and what a non-streamed
// JSON answer said (usage, finish reason). Failures before the response started were answered (and their
// outcome noted) by the client sink; a client that left was noted when its connection closed.
import type { MeteredHandler } from '../measure/metered-handler.js';
import type { KnownProtocol } from '../protocols/index.js';
import { type HintContext, hintForUpstreamStatus } from '../shared/upstream-hints.js';
import { errorCode } from './errors.js';
import type { RequestMeasurement } from './measurement.js';

export interface SettleContext {
  /** The endpoint's protocol; undefined for untimed endpoints (models, embeddings...). */
  readonly protocol: KnownProtocol | undefined;
  readonly idleMs: number;
  readonly hintContext: HintContext;
}

export function settleExchange(m: RequestMeasurement, h: MeteredHandler, context: SettleContext): void {
  m.status = h.status;
  if (m.outcome !== null) return;
  if (h.error !== null) {
    settleCut(m, h.error, context.idleMs);
    return;
  }
  if (h.status >= 400) {
    m.outcome = 'http_error';
    const body = h.keptBody();
    if (body.length > 0) m.error = body.toString('utf8').slice(0, 2000);
    m.hint =
      hintForUpstreamStatus(h.status, {
        ...context.hintContext,
        ...(m.error === null ? {} : { errorText: m.error }),
      }) ?? null;
    return;
  }
  const timing = m.figures();
  if (timing !== undefined) {
    if (timing.errorMessage !== undefined) {
      m.outcome = 'upstream_error_body';
      m.error = timing.errorMessage;
    } else if (timing.finishReason === undefined && !timing.sawDone && !timing.overflowed) {
      m.outcome = 'truncated';
      m.error = 'the stream ended without a finish reason or [DONE]';
    } else {
      m.outcome = 'ok';
    }
    return;
  }
  if (context.protocol !== undefined && h.keptWholeBody) {
    m.json = context.protocol.readAnswer(h.keptBody());
    if (m.json.errorMessage !== null) {
      m.outcome = 'upstream_error_body';
      m.error = m.json.errorMessage;
      return;
    }
  }
  m.outcome = 'ok';
}

/** The response had started and was cut: by the upstream, by its idle timeout, or by the total deadline. */
function settleCut(m: RequestMeasurement, error: Error, idleMs: number): void {
  const code = errorCode(error);
  if (code === 'UND_ERR_BODY_TIMEOUT') {
    m.outcome = 'upstream_timeout';
    m.error = `upstream '${m.upstream}' sent nothing for ${idleMs} ms mid-response (timeouts.idleMs); the stream was cut`;
  } else if (code === 'TOKENMETER_TOTAL_TIMEOUT') {
    m.outcome = 'upstream_timeout';
    m.error = `upstream '${m.upstream}' did not finish within timeouts.totalMs; the stream was cut`;
  } else {
    m.outcome = 'truncated';
    m.error = `upstream '${m.upstream}' broke off the response (${code ?? 'connection closed'})`;
  }
}
