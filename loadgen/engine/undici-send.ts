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

export function sendWithUndici(
  dispatcher: Dispatcher,
  target: EngineTarget,
  request: PreparedRequest,
  measured: MeasuredRequest,
  aborts: AbortHub,
): Promise<RequestRecord> {
  return new Promise((resolve) => {
    const removeCancel = aborts.add(() => measured.exchange.abort(new RunAbortedError()));
    measured.whenRecorded((record) => {
      removeCancel();
      resolve(record);
    });
    dispatcher.dispatch(
      {
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headers: { ...target.headers, 'x-request-id': request.requestId, traceparent: measured.traceparent },
        body: request.body,
      },
      measured.exchange,
    );
  });
}
