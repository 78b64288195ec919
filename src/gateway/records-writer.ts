// Appends request records to a JSON Lines file off the hot path: finishing a request only serializes its line and
// queues it; one write carries every line queued while the previous write was under way. A failing disk never
// stops traffic, and every record ends up counted exactly once: written (its whole line is in the file) or
// lost, with one reason (`LostReason`): the disk was full or refused it otherwise (nothing of its line stays in
// the file), or more than `maxPendingBytes` of lines were already waiting on a slow disk.
//
// Whole lines only. Each batch goes to the file with positional writes at `#offset`, the end of the last whole
// line this writer put there. When a write fails or stops short (ENOSPC typically writes what fits, then fails),
// the lines wholly inside the bytes that did land are kept and counted written, and the file is truncated back to
// the end of the last of them, so no torn line stays and no record is both on disk and counted lost. Positional
// writes rather than O_APPEND because Linux ignores the position on an O_APPEND descriptor, and because we must
// know where the batch began to cut back to it; the price is that the file belongs to this process alone (another
// appender's lines would be overwritten). If the truncation itself fails, the file is closed and reopened later,
// and opening cuts any partial last line (also one left by a crash in the middle of a write).
//
// Not sonic-boom (pino's destination, v4): after a short write it writes the rest from the middle of the line; if
// that fails (ENOSPC) it emits 'error' with the partial line left in the file, keeps the unwritten tail to append
// later, and says nothing of which records were lost. Its maxLength drop is by bytes, which fits; the rest does not.
//
// Files that are not regular (a FIFO, /dev/stdout) take plain sequential writes: they cannot be truncated, and a
// short write to them is a reader's problem, not a full disk.
import { constants, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import type { RequestRecord } from './record.js';

/** Bytes of serialized lines held in memory (queued or being written) before new records are dropped. */
export const DEFAULT_MAX_PENDING_BYTES = 16 * 1024 * 1024;
/** After a failure, records finishing within this time are lost for the same reason without touching the disk. */
export const DEFAULT_RETRY_AFTER_MS = 1000;
/** Opening reads the file backwards in chunks of this size to find the end of its last whole line. */
const REPAIR_CHUNK_BYTES = 64 * 1024;

/**
 * Why a record was lost: `disk_full` (ENOSPC, or EDQUOT: the user's quota), `write_error` (any other failure to
 * open or write the file, and a record finished after the writer closed), `queue_full` (dropped because the lines
 * waiting on a slow disk already filled the memory bound). The values of `tokenmeter_records_lost_total{reason}`.
 */
export const LOST_REASONS = ['disk_full', 'write_error', 'queue_full'] as const;
export type LostReason = (typeof LOST_REASONS)[number];

export interface RecordsWriterStats {
  written: number;
  readonly lost: Record<LostReason, number>;
}

/** The reason a failed open or write loses its records. */
export function lostReasonOf(error: unknown): LostReason {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' ? 'disk_full' : 'write_error';
}

export interface RecordsWriterOptions {
  readonly maxPendingBytes?: number;
  readonly retryAfterMs?: number;
}

export class RecordsWriter {
  readonly stats: RecordsWriterStats = { written: 0, lost: { disk_full: 0, write_error: 0, queue_full: 0 } };
  readonly #path: string;
  readonly #onError: (error: Error) => void;
  readonly #maxPendingBytes: number;
  readonly #retryAfterMs: number;
  #lines: string[] = [];
  #lengths: number[] = [];
  #queuedBytes = 0;
  /** Bytes queued plus bytes of the batch being written: what the memory bound applies to. */
  #pendingBytes = 0;
  #scheduled = false;
  #pump: Promise<void> | null = null;
  #closed = false;
  #file: FileHandle | null = null;
  /** Regular file: where the next line goes (end of the last whole line). Other files: null. */
  #offset: number | null = null;
  #retryAt = 0;
  /** Why the last failure lost its records: records finishing before `#retryAt` are lost for the same reason. */
  #retryReason: LostReason = 'write_error';

  constructor(path: string, onError: (error: Error) => void, options: RecordsWriterOptions = {}) {
    this.#path = path;
    this.#onError = onError;
    this.#maxPendingBytes = options.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES;
    this.#retryAfterMs = options.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS;
  }

  /**
   * Opens (creating) the file now, before any record: a reader started beside the gateway (bench's
   * --gateway-records checks its file before sending) finds it, and a path that cannot be opened is reported at
   * start rather than at the first request. A failure loses nothing: the first batch opens again.
   */
  openNow(): void {
    if (this.#pump !== null || this.#file !== null) return;
    this.#pump = this.#open()
      .then(
        () => undefined,
        (error: unknown) => this.#onError(error instanceof Error ? error : new Error(String(error))),
      )
      .finally(() => {
        this.#pump = null;
        this.#startPump(); // records that finished while the file was opening
      });
  }

  /** Bytes of lines held in memory now (never more than the bound). */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  add(record: RequestRecord): void {
    if (this.#closed) {
      this.stats.lost.write_error++;
      return;
    }
    const line = `${JSON.stringify(record)}\n`;
    const bytes = Buffer.byteLength(line);
    if (this.#pendingBytes + bytes > this.#maxPendingBytes) {
      this.stats.lost.queue_full++;
      return;
    }
    this.#lines.push(line);
    this.#lengths.push(bytes);
    this.#queuedBytes += bytes;
    this.#pendingBytes += bytes;
    if (!this.#scheduled && this.#pump === null) {
      this.#scheduled = true;
      setImmediate(this.#startPump);
    }
  }

  readonly #startPump = (): void => {
    this.#scheduled = false;
    // Only with lines queued: #drain must reach an await before it can clear #pump (close() may have drained).
    if (this.#pump === null && this.#lines.length > 0) this.#pump = this.#drain();
  };

  /** Writes batches until the queue is empty; lines queued during a write form the next batch. */
  async #drain(): Promise<void> {
    while (this.#lines.length > 0) {
      const lines = this.#lines;
      const lengths = this.#lengths;
      const bytes = this.#queuedBytes;
      this.#lines = [];
      this.#lengths = [];
      this.#queuedBytes = 0;
      await this.#writeBatch(lines, lengths, bytes);
      this.#pendingBytes -= bytes;
    }
    this.#pump = null;
  }

  /** Counts every line of the batch exactly once; never throws. */
  async #writeBatch(lines: string[], lengths: number[], total: number): Promise<void> {
    if (Date.now() < this.#retryAt) {
      this.stats.lost[this.#retryReason] += lines.length;
      return;
    }
    let file: FileHandle;
    try {
      file = this.#file ?? (await this.#open());
    } catch (error) {
      this.#failed(error, lines.length);
      return;
    }
    const buffer = Buffer.allocUnsafe(total);
    let at = 0;
    for (const line of lines) at += buffer.write(line, at);
    const count = lines.length;
    lines.length = 0; // the buffer holds them now: the strings need not outlive a slow write
    let done = 0;
    try {
      while (done < total) {
        const position = this.#offset === null ? null : this.#offset + done;
        const { bytesWritten } = await file.write(buffer, done, total - done, position);
        if (bytesWritten === 0) throw Object.assign(new Error('write wrote nothing'), { code: 'ENOSPC' });
        done += bytesWritten;
      }
    } catch (error) {
      let kept = 0;
      let keptBytes = 0;
      while (kept < lengths.length && keptBytes + (lengths[kept] ?? 0) <= done) {
        keptBytes += lengths[kept] ?? 0;
        kept++;
      }
      this.stats.written += kept;
      await this.#cutTo(file, keptBytes, error);
      this.#failed(error, count - kept);
      return;
    }
    if (this.#offset !== null) this.#offset += total;
    this.stats.written += count;
  }

  /** After a failed batch: truncate back to its last whole line, or give the file up so opening repairs it. */
  async #cutTo(file: FileHandle, keptBytes: number, error: unknown): Promise<void> {
    if (this.#offset !== null) {
      try {
        await file.truncate(this.#offset + keptBytes);
        this.#offset += keptBytes;
        if ((error as { code?: unknown }).code === 'ENOSPC') return;
      } catch {
        // The partial line stays until the file is opened again, which cuts it.
      }
    }
    this.#file = null;
    this.#offset = null;
    await file.close().catch(() => {});
  }

  /** Counts `lost` records of a failed batch and holds writing off for `#retryAfterMs`. */
  #failed(error: unknown, lost: number): void {
    this.#retryReason = lostReasonOf(error);
    this.stats.lost[this.#retryReason] += lost;
    this.#retryAt = Date.now() + this.#retryAfterMs;
    this.#onError(error instanceof Error ? error : new Error(String(error)));
  }

  /** Opens (creating) the file; a regular file's partial last line, if any, is cut. */
  async #open(): Promise<FileHandle> {
    const file = await open(this.#path, constants.O_RDWR | constants.O_CREAT);
    try {
      const stats = await file.stat();
      this.#offset = stats.isFile() ? await endOfLastWholeLine(file, stats) : null;
      if (this.#offset !== null && this.#offset < stats.size) await file.truncate(this.#offset);
    } catch (error) {
      await file.close().catch(() => {});
      throw error;
    }
    this.#file = file;
    return file;
  }

  /** Writes what is queued and closes the file; resolves once the data reached the OS. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#pump === null && this.#lines.length > 0) this.#pump = this.#drain();
    // The early open (openNow) hands over to a drain of what queued meanwhile: wait for that too.
    while (this.#pump !== null) await this.#pump;
    const file = this.#file;
    this.#file = null;
    await file?.close().catch(() => {});
  }
}

/** The size of `file` without its last line when that line has no newline yet (a torn write). */
async function endOfLastWholeLine(file: FileHandle, stats: Stats): Promise<number> {
  let end = stats.size;
  const chunk = Buffer.allocUnsafe(REPAIR_CHUNK_BYTES);
  while (end > 0) {
    const start = Math.max(0, end - REPAIR_CHUNK_BYTES);
    const { bytesRead } = await file.read(chunk, 0, end - start, start);
    const newline = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (newline !== -1) return start + newline + 1;
    end = start;
  }
  return 0;
}
