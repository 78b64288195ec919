// Sends one prepared request on an undici dispatcher with its MeasuredRequest's exchange as the dispatch handler
// (the caller has marked it sent): the MeteredHandler stamps headers and every body chunk the moment undici hands
// them over, with no Node stream in between, exactly as the gateway's does. Resolves with the record once the
// request has ended, however it ended.
//
// undici itself is loaded part by part (Pool and Agent, and `request` for the run's few side requests: the model
// lookup, the server metrics scrape), from their own files instead of the package's index. The index also loads
// fetch, WebSocket, EventSource, the cache and cookie stores, the mock and proxy agents: about 110 files whose
// code alone adds some 9 MB to the RSS of a bench run, whose footprint is measured against vLLM's client, and
// which it never uses. The types are undici's own (erased at build time, so they load nothing).

import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';
import type { RequestRecord } from '../record.js';
import type { AbortHub } from './abort-hub.js';
import type { EngineTarget, PreparedRequest } from './engine.js';
import { RunAbortedError } from './failure-kind.js';
import type { MeasuredRequest } from './measured-request.js';

const load = createRequire(import.meta.url);

export const Pool: typeof Undici.Pool = load('undici/lib/dispatcher/pool.js');
export const Agent: typeof Undici.Agent = load('undici/lib/dispatcher/agent.js');

type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & {
  readonly method?: Dispatcher.HttpMethod;
  readonly dispatcher?: Dispatcher;
};

const api = load('undici/lib/api/index.js') as {
  request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
};
const { getGlobalDispatcher } = load('undici/lib/global.js') as { getGlobalDispatcher(): Dispatcher };

/** undici's `request(url, options)`: on `options.dispatcher`, else on undici's global dispatcher, as the index's. */
export function request(url: string, options: RequestOptions = {}): Promise<Dispatcher.ResponseData> {
  const { dispatcher = getGlobalDispatcher(), ...rest } = options;
  const target = new URL(url);
  return api.request.call(dispatcher, {
    ...rest,
    origin: target.origin,
    path: `${target.pathname}${target.search}`,
    method: rest.method ?? 'GET',
  });
}

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
