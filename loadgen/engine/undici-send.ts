// Sends one prepared request on an undici dispatcher with its MeasuredRequest's exchange as the dispatch handler
// (the caller has marked it sent): the MeteredHandler stamps headers and every body chunk the moment undici hands
// them over, with no Node stream in between, exactly as the gateway's does. Resolves with the record once the
// request has ended, however it ended.

import type { Dispatcher } from 'undici';
import type { RequestRecord } from '../record.js';
import type { AbortHub } from './abort-hub.js';
import type { EngineTarget, PreparedRequest } from './engine.js';
import { RunAbortedError } from './failure-kind.js';
import type { MeasuredRequest } from './measured-request.js';
import { Pool } from './undici-parts.js';

/**
 * The open-loop engines' transport: one undici Pool for the target's origin, keep-alive, pipelining 1, with as many
 * connections as the run can have in flight (`connections`; null = unbounded), so no request ever queues inside
 * the HTTP client where its wait would look like server latency. Our idle timeout is applied by undici to the
 * wait for headers and to each gap between body chunks; --insecure skips TLS verification.
 */
export function enginePool(
  target: EngineTarget,
  idleTimeoutMs: number,
  connections: number | null,
): InstanceType<typeof Pool> {
  return new Pool(target.origin, {
    connections,
    pipelining: 1,
    headersTimeout: idleTimeoutMs,
    bodyTimeout: idleTimeoutMs,
    keepAliveTimeout: 60_000,
    ...(target.insecure === true ? { connect: { rejectUnauthorized: false } } : {}),
  });
}

export function sendWithUndici(
  dispatcher: Dispatcher,
  target: EngineTarget,
  request: PreparedRequest,
  measured: MeasuredRequest,
  aborts: AbortHub,
): Promise<RequestRecord> {
  return new Promise((resolve) => {
    const removeCancel = aborts.add(() => {
      const stopped = new RunAbortedError();
      // A stream whose final event arrived is finished, not cut (src/measure/stream-outcome.ts).
      if (!measured.exchange.endAtFinalEvent(stopped)) measured.exchange.abort(stopped);
    });
    measured.whenRecorded((record) => {
      removeCancel();
      resolve(record);
    });
    dispatcher.dispatch(
      {
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headers:
          request.requestId === undefined
            ? { ...target.headers, traceparent: measured.traceparent }
            : { ...target.headers, 'x-request-id': request.requestId, traceparent: measured.traceparent },
        body: request.body,
      },
      measured.exchange,
    );
  });
}
