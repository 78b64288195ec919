// The run's records as JSON lines, one per request, written the moment each request ends. Writes are
// synchronous on purpose: once a request's line is handed to the kernel it survives Ctrl-C, an exception or a
// kill of this process, and nothing is ever buffered in JavaScript waiting for a flush that may not come.
// (A line is a few hundred bytes; one write per finished request costs microseconds.)

import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseRecordLines } from '../../src/measure/record-lines.js';
import type { RequestRecord } from '../record.js';

export class RecordsFile {
  readonly path: string;
  #fd: number | undefined;
  written = 0;

  constructor(path: string) {
    this.path = path;
    mkdirSync(dirname(path), { recursive: true });
    this.#fd = openSync(path, 'w');
  }

  write(record: RequestRecord): void {
    if (this.#fd === undefined) return;
    writeSync(this.#fd, `${JSON.stringify(record)}\n`);
    this.written++;
  }

  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
  }
}

/** Reads a records file back (tests, replays), 0.1's names included; a torn last line is skipped. */
export function parseRecordsJsonl(text: string): RequestRecord[] {
  return parseRecordLines(text).records as unknown as RequestRecord[];
}
