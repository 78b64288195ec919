// Sends one prepared request on an undici dispatcher and feeds its MeasuredRequest from the dispatch handler
// callbacks (the caller has marked it sent): every body chunk is stamped with performance.now() the moment undici hands it over, with no Node
// stream in between. Resolves with the record once the request has ended, however it ended.

import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import type { RequestRecord } from '../record.js';
import type { AbortHub } from './abort-hub.js';
import type { EngineTarget, PreparedRequest } from './engine.js';
import { IdleTimeoutError, RunAbortedError } from './failure-kind.js';
import type { MeasuredRequest } from './measured-request.js';

export function sendWithUndici(
  dispatcher: Dispatcher,
  target: EngineTarget,
  request: PreparedRequest,
  measured: MeasuredRequest,
  idleTimeoutMs: number,
  aborts: AbortHub,
): Promise<RequestRecord> {
  return new Promise((resolve) => {
    let controller: Dispatcher.DispatchController | undefined;
    let cancelled = false;
    const removeCancel = aborts.add(() => {
      cancelled = true;
      controller?.abort(new RunAbortedError());
    });
    const settle = (record: RequestRecord): void => {
      removeCancel();
      resolve(record);
    };
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(ctrl) {
        controller = ctrl;
        if (cancelled) ctrl.abort(new RunAbortedError());
      },
      onResponseStart(_ctrl, statusCode, _headers, statusMessage) {
        measured.onHeaders(statusCode, statusMessage ?? '', performance.now());
      },
      onResponseData(_ctrl, chunk) {
        measured.onBody(chunk, performance.now());
      },
      onResponseEnd() {
        settle(measured.complete(performance.now()));
      },
      onResponseError(_ctrl, error) {
        const now = performance.now();
        const cause = isUndiciTimeout(error) ? new IdleTimeoutError(idleTimeoutMs) : error;
        settle(measured.fail(cause, now));
      },
    };
    dispatcher.dispatch(
      {
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headers: { ...target.headers, 'x-request-id': request.requestId },
        body: request.body,
      },
      handler,
    );
  });
}

function isUndiciTimeout(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
}
