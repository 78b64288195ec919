// Passes every export the receiver accepted on to a collector, unchanged: the same bytes with the same
// content-type and content-encoding, so the collector sees exactly what the server sent. Off the receiver's
// answer: `forward` queues and returns. Bounded: at most `maxInFlight` exports on the wire, at most
// `maxQueuedBytes` waiting; past that an export is dropped and counted, as is every failure (an error, a
// non-2xx answer, no answer within `timeoutMs`). Nothing is retried: a collector that is down costs a count per
// export, never memory or the receiver's time.
import { Pool } from 'undici';

export interface ExportForwarderOptions {
  readonly maxInFlight?: number;
  readonly maxQueuedBytes?: number;
  readonly timeoutMs?: number;
}

export const DEFAULT_FORWARD_MAX_IN_FLIGHT = 4;
export const DEFAULT_FORWARD_MAX_QUEUED_BYTES = 8 * 1024 * 1024;
export const DEFAULT_FORWARD_TIMEOUT_MS = 10_000;

export interface ExportForwarderStats {
  /** Exports the collector answered with 2xx. */
  forwarded: number;
  /** Exports sent whose forwarding failed (error, timeout, non-2xx). */
  failed: number;
  /** Exports never sent: the queue was full, or the receiver closed with them queued. */
  dropped: number;
}

interface QueuedExport {
  readonly body: Buffer;
  readonly headers: Record<string, string>;
}

export class ExportForwarder {
  readonly stats: ExportForwarderStats = { forwarded: 0, failed: 0, dropped: 0 };
  readonly #pool: Pool;
  readonly #path: string;
  readonly #maxInFlight: number;
  readonly #maxQueuedBytes: number;
  readonly #timeoutMs: number;
  readonly #queue: QueuedExport[] = [];
  #queuedBytes = 0;
  #inFlight = 0;
  #closed = false;

  /** `url`: the collector's traces endpoint, e.g. http://collector:4318/v1/traces. */
  constructor(url: string, options: ExportForwarderOptions = {}) {
    const target = new URL(url);
    this.#path = `${target.pathname}${target.search}`;
    this.#maxInFlight = options.maxInFlight ?? DEFAULT_FORWARD_MAX_IN_FLIGHT;
    this.#maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_FORWARD_MAX_QUEUED_BYTES;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS;
    this.#pool = new Pool(target.origin, {
      connections: this.#maxInFlight,
      connectTimeout: this.#timeoutMs,
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
    });
  }

  /** Bytes of exports waiting to be sent. */
  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  forward(body: Buffer, contentType: string, contentEncoding: string | undefined): void {
    if (this.#closed || this.#queuedBytes + body.length > this.#maxQueuedBytes) {
      this.stats.dropped++;
      return;
    }
    const headers: Record<string, string> = { 'content-type': contentType };
    if (contentEncoding !== undefined) headers['content-encoding'] = contentEncoding;
    this.#queue.push({ body, headers });
    this.#queuedBytes += body.length;
    this.#pump();
  }

  #pump(): void {
    while (this.#inFlight < this.#maxInFlight && this.#queue.length > 0) {
      const next = this.#queue.shift() as QueuedExport;
      this.#queuedBytes -= next.body.length;
      this.#inFlight++;
      this.#send(next).finally(() => {
        this.#inFlight--;
        this.#pump();
      });
    }
  }

  async #send(item: QueuedExport): Promise<void> {
    try {
      const answer = await this.#pool.request({
        path: this.#path,
        method: 'POST',
        headers: item.headers,
        body: item.body,
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      await answer.body.dump();
      if (answer.statusCode >= 200 && answer.statusCode < 300) this.stats.forwarded++;
      else this.stats.failed++;
    } catch {
      this.stats.failed++;
    }
  }

  /** Drops what is queued (counted) and cuts what is on the wire (counted failed): closing never waits on a collector. */
  async close(): Promise<void> {
    this.#closed = true;
    this.stats.dropped += this.#queue.length;
    this.#queue.length = 0;
    this.#queuedBytes = 0;
    await this.#pool.destroy();
  }
}
