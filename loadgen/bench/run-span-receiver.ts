// A run's own span receiver (--span-receiver-port): the server exports its spans here during the run, and each
// request's record waits, like the gateway's, for its server's span before it is counted and written. A bench
// request starts its own trace, so the trace id alone names the request: the server's span joins whether the
// server was called directly (its parent is the client's span) or through a gateway (the gateway's span).

import { UserFacingError } from '../../src/shared/user-facing-error.js';
import {
  type ReceiverListener,
  startReceiverListener,
} from '../../src/tracing/receiver/receiver-listener.js';
import { SpanJoin } from '../../src/tracing/receiver/span-join.js';
import { SpanReceiver } from '../../src/tracing/receiver/span-receiver.js';
import type { RequestRecord } from '../record.js';
import type { SpanReceiverSettings } from './settings.js';

/** Records waiting at once: a run's requests in the last `waitMs` seldom come near it. */
const MAX_WAITING_RECORDS = 100_000;

export class RunSpanReceiver {
  readonly join: SpanJoin<RequestRecord>;
  readonly #listener: ReceiverListener;
  readonly #release: (record: RequestRecord) => void;
  #finished = false;

  private constructor(
    join: SpanJoin<RequestRecord>,
    listener: ReceiverListener,
    release: (record: RequestRecord) => void,
  ) {
    this.join = join;
    this.#listener = listener;
    this.#release = release;
  }

  /** Listens before the run starts; `release` gets every record, with `server` when its span joined. */
  static async start(
    settings: SpanReceiverSettings,
    release: (record: RequestRecord) => void,
  ): Promise<RunSpanReceiver> {
    const join = new SpanJoin<RequestRecord>({
      spanKey: (span) => span.traceId,
      // The engines start a request's trace as they send it; the run learns of it only from its record.
      earlySpans: true,
      waitMs: settings.waitMs,
      maxWaiting: MAX_WAITING_RECORDS,
      release: (record, server) => release(server === undefined ? record : { ...record, server }),
    });
    // No collector here: a run's spans that join nothing are reported rejected to the exporter, which is true.
    const receiver = new SpanReceiver({ sink: join, forwarder: null });
    let listener: ReceiverListener;
    try {
      listener = await startReceiverListener(settings.host, settings.port, receiver);
    } catch (error) {
      const code = (error as { code?: string }).code ?? String(error);
      throw new UserFacingError(
        `--span-receiver-port ${settings.port}: cannot listen on ${settings.host}:${settings.port} (${code}); choose another port`,
        { cause: error },
      );
    }
    return new RunSpanReceiver(join, listener, release);
  }

  /** A request finished: its record goes on once its span joined, or after the wait. */
  settle(record: RequestRecord): void {
    // Every record an engine builds has its trace id; one without could join nothing.
    if (record.traceId === undefined) this.#release(record);
    else this.join.settle(record.traceId, null, record);
  }

  /**
   * After the run: waits for the last records' spans (at most the wait; not at all once `cut` is aborted, as by
   * Ctrl-C), releases whatever still waits, and stops listening. Safe to call again.
   */
  async finish(cut: AbortSignal): Promise<void> {
    if (this.#finished) return;
    this.#finished = true;
    if (!cut.aborted) {
      let onCut = (): void => {};
      const cutNow = new Promise<void>((resolve) => {
        onCut = resolve;
        cut.addEventListener('abort', onCut, { once: true });
      });
      await Promise.race([this.join.drained(), cutNow]);
      cut.removeEventListener('abort', onCut);
    }
    this.join.close();
    await this.#listener.close();
  }
}
