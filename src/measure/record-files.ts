// Where a gateway's records are, whether one process wrote them or several. `tokenmeter serve --records FILE`
// writes FILE; with `--workers N` each worker writes its own file beside it, named by its slot (1..N):
// `records.jsonl` becomes `records.worker1.jsonl`, `records.worker2.jsonl`, ... A replacement worker appends to its
// predecessor's file (the records writer cuts a torn last line when it opens a file). Readers name FILE, as they
// did, and get every file of that gateway: FILE itself if it exists, then the workers' files by slot.
import { readdirSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { readRegularFileSync } from '../shared/regular-file.js';

/** The records file of worker `slot` of a gateway told to write `path`. */
export function workerRecordsPath(path: string, slot: number): string {
  const ext = extname(path);
  return `${path.slice(0, path.length - ext.length)}.worker${slot}${ext}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The files holding the records written to `path`: `path` itself when no worker wrote beside it. */
export function recordsFilesAt(path: string): string[] {
  const folder = dirname(path);
  const name = basename(path);
  const ext = extname(name);
  const pattern = new RegExp(
    `^${escapeRegExp(name.slice(0, name.length - ext.length))}\\.worker(\\d+)${escapeRegExp(ext)}$`,
  );
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return [path];
  }
  const workers = entries
    .flatMap((entry) => {
      const slot = pattern.exec(entry)?.[1];
      return slot === undefined ? [] : [{ slot: Number(slot), file: join(folder, entry) }];
    })
    .sort((a, b) => a.slot - b.slot)
    .map((w) => w.file);
  if (workers.length === 0) return [path];
  return entries.includes(name) ? [path, ...workers] : workers;
}

/**
 * The text of every file of `recordsFilesAt(path)`, one after another; each file's last line ends where the next
 * file begins, so a torn last line stays one malformed line. Throws as reading `path` would when there is none.
 */
export function readRecordsText(path: string): string {
  return recordsFilesAt(path)
    .map((file) => readRegularFileSync(file))
    .join('\n');
}
