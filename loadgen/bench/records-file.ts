// A run's records as JSON lines, one per request, queued the moment each request ends and written by the one
// records writer the gateway uses too (src/shared/records-writer.ts): batched, off the event loop that stamps the
// run's chunks (a stalled file, a FIFO nobody reads, delays no stamp), each line whole or counted lost. The run's
// result says how many were lost (`tokenmeter.records_lost`). What a kill can cost: the lines queued in the last
// event-loop turn and the batch being written; Ctrl-C ends the run first, which writes them.

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseRecordLines } from '../../src/measure/record-lines.js';
import type { JsonValue } from '../../src/shared/json-object.js';
import { type LostReason, lostCount, RecordsWriter } from '../../src/shared/records-writer.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';
import type { RequestRecord } from '../record.js';

/**
 * How long the end of a run waits for its records file to take the last lines. A file that takes nothing by
 * then (a pipe nobody reads, a hung mount) is given up: what it still held is counted lost and the run ends.
 */
export const RECORDS_GIVE_UP_MS = 5000;

/** What became of a run's records: written, or lost and why (the first failure's words, when there was one). */
export interface RecordsFileCounts {
  readonly written: number;
  readonly lost: number;
  readonly lostBy: Readonly<Record<LostReason, number>>;
  /**
   * A file operation on it never returned (a hung mount): the process cannot end by itself
   * (endDespiteParkedWrite in src/shared/records-writer.ts).
   */
  readonly stuck: boolean;
  readonly firstError?: string;
}

export class RecordsFile {
  readonly path: string;
  readonly #writer: RecordsWriter<RequestRecord>;
  #firstError: string | undefined;

  private constructor(path: string, maxPendingBytes: number | undefined, exclusive: boolean) {
    this.path = path;
    this.#writer = new RecordsWriter<RequestRecord>(
      path,
      (error) => {
        this.#firstError ??= error.message;
      },
      {
        firstOpen: exclusive ? 'exclusive' : 'truncate',
        ...(maxPendingBytes === undefined ? {} : { maxPendingBytes }),
      },
    );
  }

  /**
   * Creates the file before the run sends anything; a path that cannot be written stops the run here, and so
   * does a file already there (another shard's, an earlier run's: a run never writes over a file it did not
   * write). A FIFO or device is written as it is.
   */
  static async open(path: string): Promise<RecordsFile> {
    return RecordsFile.#open(path, undefined, true);
  }

  /** A file rewritten whole from records already in memory: emptied if there, and no line dropped for memory. */
  static async rewrite(path: string): Promise<RecordsFile> {
    return RecordsFile.#open(path, Number.POSITIVE_INFINITY, false);
  }

  static async #open(
    path: string,
    maxPendingBytes: number | undefined,
    exclusive: boolean,
  ): Promise<RecordsFile> {
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (error) {
      throw new UserFacingError(`cannot write the records file ${path}: ${(error as Error).message}`);
    }
    const file = new RecordsFile(path, maxPendingBytes, exclusive);
    const failure = await file.#writer.openNow();
    if (failure !== null) {
      await file.#writer.close(0);
      if ((failure as { code?: unknown }).code === 'EEXIST') throw fileExists(path);
      throw new UserFacingError(`cannot write the records file ${path}: ${failure.message}`);
    }
    return file;
  }

  write(record: RequestRecord): void {
    this.#writer.add(record);
  }

  /** Writes what is queued (giving up after RECORDS_GIVE_UP_MS) and says what became of every record. */
  async close(): Promise<RecordsFileCounts> {
    await this.#writer.close(RECORDS_GIVE_UP_MS);
    return countsOf(this.#writer, this.#firstError);
  }
}

function countsOf(writer: RecordsWriter, firstError: string | undefined): RecordsFileCounts {
  const stats = writer.stats;
  return {
    written: stats.written,
    lost: lostCount(stats),
    lostBy: { ...stats.lost },
    stuck: writer.writeStuck,
    ...(firstError === undefined ? {} : { firstError }),
  };
}

/** The one line for a file a run would write that is already there. */
export function fileExists(path: string): UserFacingError {
  return new UserFacingError(
    `${path} already exists and this run did not write it (another shard's or an earlier run's?): remove it, or choose another --result-dir, --result-filename or --records-file`,
  );
}

/** Writes records already in memory (a merge, the workers' run) to a file, whole; none is dropped for memory. */
export async function writeRecordsFile(
  path: string,
  records: readonly RequestRecord[],
): Promise<RecordsFileCounts> {
  const file = await RecordsFile.rewrite(path);
  for (const record of records) file.write(record);
  return file.close();
}

/** The report's line when records were lost; nothing when every record was written. */
export function recordsLostLine(counts: RecordsFileCounts | undefined, path: string | null): string {
  if (counts === undefined || counts.lost === 0) return '';
  const reasons = Object.entries(counts.lostBy)
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${n} ${reason}`)
    .join(', ');
  const why = counts.firstError === undefined ? '' : `; first failure: ${counts.firstError}`;
  return `Records lost: ${counts.lost} of ${counts.written + counts.lost} were not written to ${path ?? 'the records file'} (${reasons})${why}. The figures above count every request.\n`;
}

/** `tokenmeter.records_lost` and, when some were, `records_lost_by_reason` (the result JSON's keys). */
export function recordsLostKeys(counts: RecordsFileCounts | undefined): Record<string, JsonValue> {
  if (counts === undefined) return {};
  return {
    records_lost: counts.lost,
    ...(counts.lost === 0
      ? {}
      : {
          records_lost_by_reason: Object.fromEntries(Object.entries(counts.lostBy).filter(([, n]) => n > 0)),
        }),
  };
}

/** Reads a records file back (tests, replays), 0.1's names included; a torn last line is skipped. */
export function parseRecordsJsonl(text: string): RequestRecord[] {
  return parseRecordLines(text).records as unknown as RequestRecord[];
}
