// The one place a measured exchange meets the wire: an undici dispatch handler (undici 7's handler API) that
// stamps the moment the request goes on the socket, the response headers and every body chunk with
// performance.now() as undici hands them over, feeds a streamed body to a StreamMeter, and passes the bytes on to
// a sink: the client's socket in the gateway, nothing in the load generator. There is no Node stream between
// undici and the meter, so the stamps are as close to the socket as JavaScript gets, and a full sink pauses
// undici's socket read (controller.pause/resume) instead of buffering. The load generator's closed-loop engine,
// whose client is autocannon, calls the same callbacks itself (with UNCONTROLLED), so both engines and the gateway
// measure with one piece of code.
//
// One handler per request; its fields are the wire facts of the exchange, read by the caller once it settles.

import type { IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import type { EventClassifier } from './answer-facts.js';
import { BodyDecoder, bodyDecoding } from './body-decoding.js';
import { StreamMeter } from './stream-meter.js';
import { finalEventArrived } from './stream-outcome.js';

/** Where the response goes. Called in order: head, write*, then end or fail (or fail alone). */
export interface ExchangeSink {
  /** Status and headers arrived (already stamped); `metered` says whether the body feeds a meter. */
  head(status: number, headers: IncomingHttpHeaders, metered: boolean): void;
  /** Response bytes to pass on. False when the sink is full: the handler pauses until `onDrain` fires. */
  write(bytes: Buffer): boolean;
  /** Calls `resume` once the sink can take bytes again (called only after `write` returned false). */
  onDrain(resume: () => void): void;
  /** The whole body arrived and was written. */
  end(): void;
  /** The exchange failed; `responseStarted` says whether head() was called before. */
  fail(error: Error, responseStarted: boolean): void;
}

/** A sink that drops the bytes: the load generator only measures. */
export const DISCARD: ExchangeSink = Object.freeze({
  head() {},
  write: () => true,
  onDrain() {},
  end() {},
  fail() {},
});

/**
 * The controller handed to the handler by a client that is not undici (the closed-loop engine's autocannon feeds
 * the handler's callbacks itself): nothing to pause or abort, since such a client paces its own reads.
 */
export const UNCONTROLLED: Dispatcher.DispatchController = Object.freeze({
  aborted: false,
  paused: false,
  reason: null,
  abort() {},
  pause() {},
  resume() {},
});

export interface MeteredHandlerOptions {
  /** Reads the streamed body's events; undefined for bodies that are not timed (models, embeddings...). */
  readonly classifier: EventClassifier | undefined;
  /**
   * Meter the body whatever its content type (the load generator asked for a stream, and a body that is not one
   * must be judged as such); otherwise only a `text/event-stream` body is metered (the gateway).
   */
  readonly meterEveryBody: boolean;
  readonly sink: ExchangeSink;
  /**
   * Keep every gap between content chunks, up to MAX_KEPT_GAPS (stream-meter.ts): the load generator's ITL
   * percentiles, the gateway's records.gaps. The gaps' figures and histogram counts are kept without it.
   */
  readonly keepChunkDetail: boolean;
  /** Keep the generated text (the load generator re-tokenizes it when the server sends no usage). */
  readonly keepText: boolean;
  /** Remove usage-only events from the bytes passed on (the gateway asked for usage on the client's behalf). */
  readonly removeUsageOnlyEvents: boolean;
  /** How many leading bytes of the body to keep (for usage of a JSON answer, or an error's text). */
  keepBodyBytes(status: number, streamed: boolean): number;
  /** Called once, when the exchange ended or failed, after the sink's end or fail. */
  onSettled(handler: MeteredHandler): void;
  /** Called when undici takes the request off its queue to write it (the load generator's planned cancellation
   *  counts its delay from there). */
  readonly onRequestStart?: () => void;
}

export class MeteredHandler implements Dispatcher.DispatchHandler {
  /** performance.now() when undici took the request off its queue to write it; NaN until then. */
  requestStartAt = Number.NaN;
  /** Response headers arrived; NaN until then. */
  headersAt = Number.NaN;
  /** The body ended, or the exchange failed or was aborted; NaN until then. */
  endAt = Number.NaN;
  status = 0;
  statusText = '';
  /** Present once headers arrived on a streamed (SSE) response whose protocol is timed. */
  meter: StreamMeter | null = null;
  /** Time response chunks spent being handed to the sink, summed (the gateway's forwarding cost). */
  sinkMs = 0;
  /** The failure, when the exchange did not end normally. */
  error: Error | null = null;
  readonly #options: MeteredHandlerOptions;
  readonly #sink: ExchangeSink;
  #controller: Dispatcher.DispatchController | null = null;
  #abortReason: Error | null = null;
  #kept: Buffer[] | null = null;
  #keptBytes = 0;
  #keepLimit = 0;
  #settled = false;
  /** Present when the body arrives compressed: the meter, the kept bytes and the sink get it decoded. */
  #decoder: BodyDecoder | null = null;
  readonly #resume = (): void => {
    this.#controller?.resume();
    this.#decoder?.resume();
  };

  constructor(options: MeteredHandlerOptions) {
    this.#options = options;
    this.#sink = options.sink;
  }

  get settled(): boolean {
    return this.#settled;
  }

  /** The kept leading bytes of the body (see keepBodyBytes); empty when none were kept. */
  keptBody(): Buffer {
    return this.#kept === null ? Buffer.alloc(0) : Buffer.concat(this.#kept, this.#keptBytes);
  }

  /** True when the whole body was kept (it fit within the limit). */
  get keptWholeBody(): boolean {
    return this.#kept !== null && this.#keptBytes < this.#keepLimit;
  }

  /** Stops the exchange (client gone, deadline, run stopped); before it started, as soon as it starts. */
  abort(reason: Error): void {
    if (this.#settled) return;
    this.#abortReason ??= reason;
    // The compressed body has all arrived and is still being decoded: undici has nothing left to abort.
    if (this.#decoder !== null && !Number.isNaN(this.endAt)) this.#failDecoded(reason);
    else this.#controller?.abort(reason);
  }

  /**
   * The reader stopped before the body ended (the client left, the run was stopped, a planned cancellation): once
   * the stream's final event had arrived the exchange ends here, as an answer that ended and is judged by the
   * outcome rule (stream-outcome.ts says why), and undici stops reading the rest with `reason`. Returns whether it
   * ended; false changes nothing (the caller then concludes the abort and calls abort()).
   */
  endAtFinalEvent(reason: Error): boolean {
    const meter = this.meter;
    if (this.#settled || meter === null || !finalEventArrived(meter.result())) return false;
    this.endAt = performance.now();
    this.#decoder?.destroy();
    // Nothing goes to the sink: its reader is gone.
    meter.end(this.endAt);
    this.#settle();
    this.#controller?.abort(reason);
    return true;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.requestStartAt = performance.now();
    this.#controller = controller;
    if (this.#abortReason !== null) controller.abort(this.#abortReason);
    else this.#options.onRequestStart?.();
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    statusMessage?: string,
  ): void {
    // Informational answers (103 Early Hints, an unsolicited 102) are not the answer (RFC 9110 15.2): undici
    // reports them here before the final one, which follows. They are dropped, not forwarded: their hints are
    // for browsers loading pages, and the final answer's head must be the first the client gets.
    if (statusCode < 200) return;
    const decoding = bodyDecoding(headers['content-encoding']);
    if ('undecodable' in decoding) {
      // Not passed on undecoded (body-decoding.ts says why): the exchange fails before its answer started, so the
      // gateway answers its own error and the load generator counts a failure.
      this.#failDecoded(decoding.undecodable);
      return;
    }
    this.headersAt = performance.now();
    this.status = statusCode;
    this.statusText = statusMessage ?? '';
    const options = this.#options;
    const streamed = String(headers['content-type'] ?? '').startsWith('text/event-stream');
    if ((streamed || options.meterEveryBody) && options.classifier !== undefined) {
      this.meter = new StreamMeter({
        classifier: options.classifier,
        keepChunkDetail: options.keepChunkDetail,
        keepText: options.keepText,
        removeUsageOnlyEvents: options.removeUsageOnlyEvents,
      });
    }
    this.#keepLimit = options.keepBodyBytes(statusCode, streamed);
    if (this.#keepLimit > 0) this.#kept = [];
    if (decoding.codings.length > 0) {
      this.#decoder = new BodyDecoder(decoding.codings, {
        data: (bytes, arrivedAt) => this.#take(bytes, arrivedAt),
        end: () => this.#finish(),
        error: (error) => this.#failDecoded(error),
      });
      // The sink passes on the decoded body: its encoding and length are no longer those of the bytes sent.
      const { 'content-encoding': _, 'content-length': __, ...decoded } = headers;
      this.#sink.head(statusCode, decoded, this.meter !== null);
      return;
    }
    this.#sink.head(statusCode, headers, this.meter !== null);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const at = performance.now();
    if (this.#decoder === null) this.#take(chunk, at);
    else this.#decoder.push(chunk, at);
  }

  onResponseEnd(_controller: Dispatcher.DispatchController, _trailers: IncomingHttpHeaders): void {
    if (this.#settled) return;
    this.endAt = performance.now();
    if (this.#decoder === null) this.#finish();
    else this.#decoder.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    // A client fed by hand (autocannon) may report a failure for an exchange that already ended.
    if (this.#settled) return;
    this.#decoder?.destroy();
    if (Number.isNaN(this.endAt)) this.endAt = performance.now();
    this.meter?.end(this.endAt);
    this.error = this.#abortReason ?? error;
    this.#sink.fail(this.error, !Number.isNaN(this.headersAt));
    this.#settle();
  }

  /** Body bytes as the client gets them (decoded, when they came compressed), stamped when they arrived. */
  #take(bytes: Buffer, at: number): void {
    const handedAt = performance.now();
    const out = this.meter === null ? bytes : this.meter.onBytes(bytes, at);
    if (this.#kept !== null && this.#keptBytes < this.#keepLimit) this.#keep(bytes);
    if (out.length > 0 && !this.#sink.write(out)) {
      this.#controller?.pause();
      this.#decoder?.pause();
      this.#sink.onDrain(this.#resume);
    }
    this.sinkMs += performance.now() - handedAt;
  }

  /** The whole body arrived (and was decoded): the rest the meter held goes out, then the end. */
  #finish(): void {
    if (this.#settled) return;
    const rest = this.meter?.end(this.endAt);
    if (rest !== undefined && rest.length > 0) this.#sink.write(rest);
    this.#sink.end();
    this.#settle();
  }

  /** A body that cannot be decoded, or an abort while one is: the exchange fails, undici's read stops. */
  #failDecoded(error: Error): void {
    this.onResponseError(this.#controller ?? UNCONTROLLED, error);
    this.#controller?.abort(error);
  }

  #keep(chunk: Buffer): void {
    const room = this.#keepLimit - this.#keptBytes;
    // undici reuses nothing it hands over, but a slice keeps the whole chunk alive: copy only a partial one.
    const part = chunk.length <= room ? chunk : Buffer.from(chunk.subarray(0, room));
    (this.#kept as Buffer[]).push(part);
    this.#keptBytes += part.length;
  }

  #settle(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#options.onSettled(this);
  }
}
