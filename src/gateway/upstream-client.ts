// The client object handed to @fastify/reply-from. reply-from builds undici request options itself; the
// per-request call (which upstream's dispatcher, the abort signal, the measurement) rides along on the headers
// object under a symbol, which survives reply-from's header copy but is never serialized onto the wire.
import type { Dispatcher } from 'undici';
import type { RequestMeasurement } from './measurement.js';
import { kMeasurement } from './upstream-dispatcher.js';

export const kUpstreamCall = Symbol('tokenmeter.upstreamCall');

export interface UpstreamCall {
  readonly dispatcher: Dispatcher;
  readonly signal: AbortSignal;
  readonly measurement: RequestMeasurement;
}

type RequestOptions = Dispatcher.RequestOptions & { headers?: Record<string | symbol, unknown> };
type Callback = (err: Error | null, data: Dispatcher.ResponseData) => void;

/** reply-from calls only the callback form of `request`; the typing asks for the promise form too. */
export const upstreamClient = {
  request(options: RequestOptions, callback: Callback): void {
    const call = options.headers?.[kUpstreamCall] as UpstreamCall | undefined;
    if (call === undefined) {
      callback(new Error('tokenmeter: request dispatched without an upstream call'), undefined as never);
      return;
    }
    const { headersTimeout, bodyTimeout, ...rest } = options;
    call.dispatcher.request(
      { ...rest, signal: call.signal, [kMeasurement]: call.measurement } as Dispatcher.RequestOptions,
      callback as never,
    );
  },
};
