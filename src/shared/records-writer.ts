// Appends records to a JSON Lines file off the path that stamps chunks: `add` only serializes a record's line and
// queues it; one write carries every line queued while the previous write was under way. The gateway's records
// file and the load generator's use this one writer. A failing disk never stops traffic, and every record ends up
// counted exactly once: written (its whole line is in the file) or lost, with one reason (`LostReason`).
//
// Whole lines only. A regular file is opened with O_APPEND, so each write lands at the file's end as the kernel
// sees it: when logrotate's `copytruncate` empties the file, the next line goes to offset 0 (no run of NUL bytes
// up to the old offset, no line glued to them), whether or not the writer has noticed the truncation yet. When a
// write fails or stops short (ENOSPC typically writes what fits, then fails), the lines wholly inside the bytes
// that did land are kept and counted written, and the file is truncated back to the end of the last of them (its
// size then, less the landed part of the torn line: the batch was appended at the end), so no torn line stays and
// no record is both on disk and counted lost. If the
// truncation itself fails, the file is closed and reopened later, and opening cuts any partial last line (also one
// left by a crash in the middle of a write). The file belongs to this process alone: another appender's lines
// could be cut by that truncation.
//
// Records survive operations. Before a batch, when the last look is `rotationCheckMs` old (1 s by default), the
// writer compares the open file with what the path names now (two stat calls, each a round trip through libuv's
// threadpool: 80-160 us of CPU per batch in a micro-benchmark, and a gateway at 40 requests/s writes about one
// batch per request; bench/gateway-overhead.ts measured 0.08-0.34 ms per request less, in runs on a shared box,
// against about 2.7 ms per request in all): a file renamed away or deleted is let go and the path
// opened (created) anew, and a file that shrank is noted at its new end, a partial last line cut. `reopen()`
// (SIGHUP, logrotate's `postrotate`) lets go of the file at once. So a file renamed away or deleted without a
// SIGHUP gets the lines of up to that second before the writer sees it (counted written: into the renamed file,
// or lost with the deleted one), and a file cut inside a line by something other than logrotate can get a line
// glued to the partial one before the look cuts it. Lines written between logrotate's copy and its truncation are
// lost with the truncation, as with any copytruncate; they stay counted written (the writer cannot see them go).
//
// Files that are not regular (a FIFO, /dev/stdout) take plain sequential writes on a non-blocking descriptor:
// a reader that stops reading makes writes fail with EAGAIN, retried on a timer, instead of a write parked in
// libuv's threadpool (a parked write holds a threadpool thread, and Node's exit waits to join that thread: the
// process could not end). They cannot be cut back: if close() gives up on a pipe midway through a line, the reader
// gets that line's first part with no newline, last (the record is counted lost; record readers skip a torn last
// line). A regular file on a hung mount can still park a write; `close(giveUpAfterMs)` then counts what it held as
// lost and reports `writeStuck`, and the caller decides how the process ends.
//
// A file the writer creates is created 0600 (owner read and write only, whatever the umask): a records file holds
// what clients sent and got (paths, models, errors quoting upstream answers; users' prompts with the gateway's
// `records.bodies`, generated text in the load generator's), and one mode for every records file is simpler to
// state and check than a mode that depends on a flag. A file already there keeps its mode.
//
// Not sonic-boom (pino's destination, v4): after a short write it writes the rest from the middle of the line; if
// that fails (ENOSPC) it emits 'error' with the partial line left in the file, keeps the unwritten tail to append
// later, and says nothing of which records were lost. Its maxLength drop is by bytes, which fits; the rest does not.

import { constants, type Stats } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';

/** Bytes of serialized lines held in memory (queued or being written) before new records are dropped. */
export const DEFAULT_MAX_PENDING_BYTES = 16 * 1024 * 1024;
/** After a failure, records finishing within this time are lost for the same reason without touching the disk. */
export const DEFAULT_RETRY_AFTER_MS = 1000;
/** A pipe or device that takes nothing (EAGAIN) is tried again after this long. */
const BUSY_RETRY_MS = 20;
/** Opening reads the file backwards in chunks of this size to find the end of its last whole line. */
const REPAIR_CHUNK_BYTES = 64 * 1024;
/** How old the last look at the path may be before a batch looks again (rename, deletion, truncation). */
export const DEFAULT_ROTATION_CHECK_MS = 1000;

/**
 * Why a record was lost: `disk_full` (ENOSPC, or EDQUOT: the user's quota), `write_error` (any other failure to
 * open or write the file, a record finished after the writer closed, and what a file that took nothing still held
 * when closing gave up on it), `queue_full` (dropped because the lines waiting on a slow disk already filled the
 * memory bound). The values of `tokenmeter_records_lost_total{reason}`.
 */
export const LOST_REASONS = ['disk_full', 'write_error', 'queue_full'] as const;
export type LostReason = (typeof LOST_REASONS)[number];

export interface RecordsWriterStats {
  written: number;
  readonly lost: Record<LostReason, number>;
}

/** Every record the writer was given and lost, whatever the reason. */
export function lostCount(stats: RecordsWriterStats): number {
  return stats.lost.disk_full + stats.lost.write_error + stats.lost.queue_full;
}

/** The reason a failed open or write loses its records. */
export function lostReasonOf(error: unknown): LostReason {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' ? 'disk_full' : 'write_error';
}

/** The mode a records file is created with (see above): its owner's only. */
export const RECORDS_FILE_MODE = 0o600;

export interface RecordsWriterOptions {
  readonly maxPendingBytes?: number;
  readonly retryAfterMs?: number;
  /**
   * How the first open treats a file already there: `append` to it (the gateway), `truncate` it (a file rewritten
   * whole: a merge), or refuse it with EEXIST (`exclusive`: a load generator run's own file, which must not be
   * another run's). Reopening after a rotation always appends.
   */
  readonly firstOpen?: 'append' | 'truncate' | 'exclusive';
  /** A batch looks at the path first when the last look is this old; 0 looks before every batch. */
  readonly rotationCheckMs?: number;
}

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

export class RecordsWriter<T = unknown> {
  readonly stats: RecordsWriterStats = { written: 0, lost: { disk_full: 0, write_error: 0, queue_full: 0 } };
  readonly #path: string;
  readonly #onError: (error: Error) => void;
  readonly #maxPendingBytes: number;
  readonly #retryAfterMs: number;
  readonly #rotationCheckMs: number;
  #firstOpen: 'append' | 'truncate' | 'exclusive';
  #lines: string[] = [];
  #lengths: number[] = [];
  #queuedBytes = 0;
  /** Bytes queued plus bytes of the batch being written: what the memory bound applies to. */
  #pendingBytes = 0;
  /** Lines of the batch being written that are not counted yet (written or lost). */
  #unsettled = 0;
  #scheduled = false;
  #pump: Promise<void> | null = null;
  #closed = false;
  /** close()'s time ran out: what was pending is counted lost, and nothing more is written or counted. */
  #abandoned = false;
  #wakeBusy: (() => void) | null = null;
  #file: FileHandle | null = null;
  #regular = true;
  /** Regular file: where this writer's last whole line ends, to notice a file that shrank. */
  #end = 0;
  /** performance.now() of the last look at what the path names (opening counts as one). */
  #lookedAt = Number.NEGATIVE_INFINITY;
  #reopenWanted = false;
  #retryAt = 0;
  /** Why the last failure lost its records: records finishing before `#retryAt` are lost for the same reason. */
  #retryReason: LostReason = 'write_error';

  constructor(path: string, onError: (error: Error) => void, options: RecordsWriterOptions = {}) {
    this.#path = path;
    this.#onError = onError;
    this.#maxPendingBytes = options.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES;
    this.#retryAfterMs = options.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS;
    this.#rotationCheckMs = options.rotationCheckMs ?? DEFAULT_ROTATION_CHECK_MS;
    this.#firstOpen = options.firstOpen ?? 'append';
  }

  get path(): string {
    return this.#path;
  }

  /**
   * Opens (creating) the file now, before any record: a reader started beside the gateway (bench's
   * --gateway-records checks its file before sending) finds it, and a path that cannot be opened is reported at
   * start rather than at the first request. A failure loses nothing: the first batch opens again. Resolves with
   * the failure, if any (a caller that must not start without its file checks it); `onError` hears it too.
   */
  openNow(): Promise<Error | null> {
    if (this.#pump !== null || this.#file !== null) return Promise.resolve(null);
    const opening = this.#open().then(
      () => null,
      (error: unknown) => {
        const failure = error instanceof Error ? error : new Error(String(error));
        this.#onError(failure);
        return failure;
      },
    );
    this.#pump = opening
      .then(() => undefined)
      .finally(() => {
        this.#pump = null;
        this.#startPump(); // records that finished while the file was opening
      });
    return opening;
  }

  /** Bytes of lines held in memory now (never more than the bound). */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  /**
   * True when close() gave up on a file operation that never returned (a write, or the stat or open before one,
   * on a hung mount): it still holds a libuv threadpool thread, and Node's exit joins those threads, so the process
   * cannot end by itself (endDespiteParkedWrite, at the end of this file, ends it).
   */
  get writeStuck(): boolean {
    return this.#abandoned && this.#pump !== null;
  }

  add(record: T): void {
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
    this.#schedule();
  }

  /**
   * Lets go of the file and opens the path anew before the next line (SIGHUP, after logrotate renamed the file).
   * Lines already queued go to the new file.
   */
  reopen(): void {
    if (this.#closed) return;
    this.#reopenWanted = true;
    this.#wakeBusy?.();
    this.#schedule();
  }

  #schedule(): void {
    if (!this.#scheduled && this.#pump === null) {
      this.#scheduled = true;
      setImmediate(this.#startPump);
    }
  }

  readonly #startPump = (): void => {
    this.#scheduled = false;
    // Only with work to do: #drain must reach an await before it can clear #pump (close() may have drained).
    if (this.#pump === null && (this.#lines.length > 0 || this.#reopenWanted)) this.#pump = this.#drain();
  };

  /** Writes batches until the queue is empty; lines queued during a write form the next batch. */
  async #drain(): Promise<void> {
    if (this.#lines.length === 0 && this.#reopenWanted) {
      // Nothing to write: open the path now, so the file logrotate expects after its SIGHUP exists at once.
      await this.#letGo();
      await this.#open().catch((error: unknown) =>
        this.#onError(error instanceof Error ? error : new Error(String(error))),
      );
    }
    while (this.#lines.length > 0 && !this.#abandoned) {
      const lines = this.#lines;
      const lengths = this.#lengths;
      const bytes = this.#queuedBytes;
      this.#lines = [];
      this.#lengths = [];
      this.#queuedBytes = 0;
      this.#unsettled = lines.length;
      await this.#writeBatch(lines, lengths, bytes);
      if (this.#abandoned) break;
      this.#unsettled = 0;
      this.#pendingBytes -= bytes;
    }
    this.#pump = null;
    if (this.#reopenWanted && !this.#abandoned && !this.#closed) this.#schedule();
  }

  /** Counts every line of the batch exactly once; never throws. */
  async #writeBatch(lines: string[], lengths: number[], total: number): Promise<void> {
    if (Date.now() < this.#retryAt) {
      this.#lose(this.#retryReason, lines.length);
      return;
    }
    let file: FileHandle;
    try {
      if (this.#reopenWanted) await this.#letGo();
      file = await this.#fileForBatch();
    } catch (error) {
      if (!this.#abandoned) this.#failed(error, lines.length);
      return;
    }
    if (this.#abandoned) return;
    const buffer = Buffer.allocUnsafe(total);
    let at = 0;
    for (const line of lines) at += buffer.write(line, at);
    lines.length = 0; // the buffer holds them now: the strings need not outlive a slow write
    let done = 0;
    let counted = 0;
    let countedBytes = 0;
    // Lines wholly inside the bytes that landed are counted written as they land.
    const countLanded = (): void => {
      while (counted < lengths.length && countedBytes + (lengths[counted] ?? 0) <= done) {
        countedBytes += lengths[counted] ?? 0;
        counted++;
        this.stats.written++;
        this.#unsettled--;
      }
    };
    try {
      while (done < total) {
        let bytesWritten: number;
        try {
          ({ bytesWritten } = await file.write(buffer, done, total - done, null));
        } catch (error) {
          if (this.#regular || codeOf(error) !== 'EAGAIN') throw error;
          bytesWritten = 0;
        }
        if (this.#abandoned) return;
        if (bytesWritten === 0) {
          if (this.#regular) throw Object.assign(new Error('write wrote nothing'), { code: 'ENOSPC' });
          await this.#busyWait(); // a pipe nobody reads now: try again later, until close() gives up
          if (this.#abandoned) return;
          continue;
        }
        done += bytesWritten;
        countLanded();
      }
    } catch (error) {
      await this.#cutTo(file, done - countedBytes, error);
      if (this.#abandoned) return;
      this.#failed(error, lengths.length - counted);
      return;
    }
    if (this.#regular) this.#end += total;
  }

  /**
   * The file to write this batch to. A regular file whose last look is `rotationCheckMs` old is checked against its
   * path first: renamed away or deleted, the path is opened anew; shrunk (copytruncate), its end is noted.
   */
  async #fileForBatch(): Promise<FileHandle> {
    const file = this.#file ?? (await this.#open());
    if (!this.#regular) return file;
    const now = performance.now();
    if (now - this.#lookedAt < this.#rotationCheckMs) return file;
    this.#lookedAt = now;
    const [held, named] = await Promise.all([file.stat(), namedFile(this.#path)]);
    if (named === null || named.ino !== held.ino || named.dev !== held.dev) {
      await this.#letGo();
      return await this.#open();
    }
    if (held.size < this.#end) {
      // Emptied under us (copytruncate), or cut by someone: the next line goes at the end of what is left,
      // after cutting a partial last line if the cut left one.
      this.#end = await endOfLastWholeLine(file, held);
      if (this.#end < held.size) await file.truncate(this.#end);
    } else {
      this.#end = held.size;
    }
    return file;
  }

  /** Waits before trying a pipe that took nothing again; reopen() and close()'s deadline end the wait early. */
  #busyWait(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, BUSY_RETRY_MS);
      const self = this;
      function done(): void {
        clearTimeout(timer);
        self.#wakeBusy = null;
        resolve();
      }
      this.#wakeBusy = done;
    });
  }

  #lose(reason: LostReason, count: number): void {
    this.stats.lost[reason] += count;
    this.#unsettled -= count;
  }

  /**
   * After a failed batch: truncate the `torn` bytes of its partial line off the end (the batch was appended
   * there), or give the file up so opening repairs it.
   */
  async #cutTo(file: FileHandle, torn: number, error: unknown): Promise<void> {
    if (this.#regular) {
      try {
        const { size } = await file.stat();
        const keptEnd = Math.max(0, size - torn);
        if (size > keptEnd) await file.truncate(keptEnd);
        this.#end = keptEnd;
        if (codeOf(error) === 'ENOSPC') return;
      } catch {
        // The partial line stays until the file is opened again, which cuts it.
      }
    }
    if (this.#file === file) this.#file = null;
    await file.close().catch(() => {});
  }

  /** Closes the file this writer holds, so the next batch opens the path again. */
  async #letGo(): Promise<void> {
    this.#reopenWanted = false;
    const file = this.#file;
    this.#file = null;
    await file?.close().catch(() => {});
  }

  /** Counts `lost` records of a failed batch and holds writing off for `#retryAfterMs`. */
  #failed(error: unknown, lost: number): void {
    this.#retryReason = lostReasonOf(error);
    this.#lose(this.#retryReason, lost);
    this.#retryAt = Date.now() + this.#retryAfterMs;
    this.#onError(error instanceof Error ? error : new Error(String(error)));
  }

  /**
   * Opens (creating) the file; a regular file's partial last line, if any, is cut. A pipe or device is opened
   * non-blocking (see the top of this file).
   */
  async #open(): Promise<FileHandle> {
    const before = await namedFile(this.#path);
    const regular = before === null || before.isFile();
    const first =
      this.#firstOpen === 'truncate'
        ? constants.O_TRUNC
        : this.#firstOpen === 'exclusive'
          ? constants.O_EXCL
          : 0;
    const flags = regular
      ? constants.O_RDWR | constants.O_CREAT | constants.O_APPEND | first
      : constants.O_RDWR | constants.O_NONBLOCK;
    const file = await open(this.#path, flags, RECORDS_FILE_MODE);
    try {
      const stats = await file.stat();
      this.#regular = stats.isFile();
      if (this.#regular) {
        this.#end = await endOfLastWholeLine(file, stats);
        if (this.#end < stats.size) await file.truncate(this.#end);
      }
    } catch (error) {
      await file.close().catch(() => {});
      throw error;
    }
    this.#firstOpen = 'append'; // a file reopened after rotation is appended to
    this.#file = file;
    this.#lookedAt = performance.now();
    return file;
  }

  /**
   * Writes what is queued and closes the file; resolves once the data reached the OS. With `giveUpAfterMs`, a
   * file that has not taken everything by then (a pipe nobody reads, a hung mount) is given up: what it still
   * held is counted lost (`write_error`) and close() resolves anyway.
   */
  async close(giveUpAfterMs?: number): Promise<void> {
    this.#closed = true;
    this.#reopenWanted = false;
    if (this.#pump === null && this.#lines.length > 0) this.#pump = this.#drain();
    const drained = (async () => {
      // The early open (openNow) hands over to a drain of what queued meanwhile: wait for that too.
      while (this.#pump !== null) await this.#pump;
    })();
    if (giveUpAfterMs === undefined) {
      await drained;
    } else {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), giveUpAfterMs);
      });
      const late = await Promise.race([drained.then(() => false), timedOut]);
      clearTimeout(timer);
      if (late) {
        this.#giveUp();
        // A pump waiting on a pipe that took nothing wakes and stops within this turn; one parked in the OS does not.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    const file = this.#file;
    this.#file = null;
    // Closing waits for the file's operations to return: behind a parked one it would never resolve.
    if (this.writeStuck) void file?.close().catch(() => {});
    else await file?.close().catch(() => {});
  }

  /** close()'s time ran out: counts every line still held as lost, once, and stops the pump. */
  #giveUp(): void {
    this.#abandoned = true;
    this.stats.lost.write_error += this.#unsettled + this.#lines.length;
    this.#unsettled = 0;
    this.#lines = [];
    this.#lengths = [];
    this.#queuedBytes = 0;
    this.#pendingBytes = 0;
    this.#wakeBusy?.();
  }
}

/** What the path names now; null when nothing does (deleted, or renamed away). */
async function namedFile(path: string): Promise<Stats | null> {
  try {
    return await stat(path);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return null;
    throw error;
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

// ---- Ending a process a parked file operation keeps alive ----
// Ends a process that a file operation the OS never returns would keep alive: a records write (or the stat before
// one) on a hung network mount. Such an operation holds one of libuv's threadpool threads, and both the end of the
// event loop and process.exit() wait for it (libuv joins its threads on exit). A signal's default action does
// not wait: the process ends as one killed by SIGTERM (status 143 to a shell, and a clean stop to systemd and
// Kubernetes, which sent it). What the file did not take was counted lost and said in the log before this runs:
// the gateway's flushLogSync (src/gateway/logs/logger.ts) writes that log out first. No logger is imported here:
// bench writes its records through this file too, and pino is not one of its modules.

/** `flush` writes out what the process still has to say, on this thread (its log's batch, say). */
export function endDespiteParkedWrite(flush: () => void): void {
  flush();
  process.removeAllListeners('SIGTERM');
  process.kill(process.pid, 'SIGTERM');
}
