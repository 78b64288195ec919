// Appends request records to a JSON Lines file off the hot path: finishing a request only queues its line; one
// write per event-loop turn carries every queued line. A failing disk never stops traffic: failed and dropped
// records are counted (and the file reopened later), the proxying goes on.
import { createWriteStream, type WriteStream } from 'node:fs';
import type { RequestRecord } from './record.js';

/** Lines queued beyond this (a stalled disk) are dropped and counted rather than held in memory. */
const MAX_QUEUED_LINES = 100_000;
const REOPEN_AFTER_MS = 1000;

export interface RecordsWriterStats {
  written: number;
  failed: number;
  dropped: number;
}

export class RecordsWriter {
  readonly stats: RecordsWriterStats = { written: 0, failed: 0, dropped: 0 };
  readonly #path: string;
  readonly #onError: (error: Error) => void;
  #stream: WriteStream | null = null;
  #queue: string[] = [];
  #scheduled = false;
  #failedAt = 0;
  #inWrite = 0;

  constructor(path: string, onError: (error: Error) => void) {
    this.#path = path;
    this.#onError = onError;
  }

  add(record: RequestRecord): void {
    if (this.#queue.length >= MAX_QUEUED_LINES) {
      this.stats.dropped++;
      return;
    }
    this.#queue.push(JSON.stringify(record));
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.#flush());
    }
  }

  #open(): WriteStream | null {
    if (this.#stream !== null) return this.#stream;
    if (Date.now() - this.#failedAt < REOPEN_AFTER_MS) return null;
    const stream = createWriteStream(this.#path, { flags: 'a' });
    stream.on('error', (error) => {
      this.stats.failed += this.#inWrite;
      this.#inWrite = 0;
      this.#failedAt = Date.now();
      if (this.#stream === stream) this.#stream = null;
      this.#onError(error);
    });
    this.#stream = stream;
    return stream;
  }

  #flush(): void {
    this.#scheduled = false;
    if (this.#queue.length === 0) return;
    const stream = this.#open();
    if (stream === null) {
      this.stats.failed += this.#queue.length;
      this.#queue = [];
      return;
    }
    const lines = this.#queue;
    this.#queue = [];
    const count = lines.length;
    this.#inWrite += count;
    stream.write(`${lines.join('\n')}\n`, (error) => {
      if (error) return;
      this.#inWrite -= count;
      this.stats.written += count;
    });
  }

  /** Writes what is queued and closes the file; resolves once the data reached the OS. */
  async close(): Promise<void> {
    this.#flush();
    const stream = this.#stream;
    this.#stream = null;
    if (stream === null) return;
    await new Promise<void>((resolve) => {
      stream.end(() => resolve());
      stream.once('error', () => resolve());
    });
  }
}
