// Where a mirror copy's answer goes: nowhere. Its bytes are metered by the MeteredHandler and dropped here; a
// failure before the answer started is noted on the copy's measurement with the outcome and message the client
// would have got from the same failure on a primary (errors.ts), so the two sides' records read alike.
import type { IncomingHttpHeaders } from 'node:http';
import type { ExchangeSink } from '../../measure/metered-handler.js';
import type { ResolvedUpstream } from '../config/config-resolve.js';
import type { RequestMeasurement } from '../records/measurement.js';
import { upstreamFailure } from '../request-path/errors.js';

export class MirrorSink implements ExchangeSink {
  readonly #m: RequestMeasurement;
  readonly #upstream: ResolvedUpstream;

  constructor(m: RequestMeasurement, upstream: ResolvedUpstream) {
    this.#m = m;
    this.#upstream = upstream;
  }

  head(_status: number, _headers: IncomingHttpHeaders, _metered: boolean): void {}

  write(_bytes: Buffer): boolean {
    return true;
  }

  onDrain(_resume: () => void): void {}

  end(): void {}

  fail(error: Error, responseStarted: boolean): void {
    // A cut answer is judged by settleExchange, like a primary's; an outcome already set (a cut by the gateway)
    // stands.
    if (responseStarted || this.#m.outcome !== null) return;
    const failure = upstreamFailure(this.#upstream, error);
    this.#m.conclude(failure.outcome, failure.message);
  }
}
