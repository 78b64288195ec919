// Every file an offline tool reads (compare, merge, report, trace export, doctor, bench's dataset, tokenizer and
// --config) is a name a user typed or a file named, and a name can be anything: a FIFO blocks open() until a writer
// comes (forever, with nothing said), a device such as /dev/zero reads without end, a folder is no file. These open
// without waiting (O_NONBLOCK: a FIFO opens at once; a regular file reads as always) and read only a regular file;
// anything else is refused with an error whose message names what it is, which fileErrorReason (at the end)
// words like any other reason a file cannot be read.
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';

/** O_NONBLOCK where the platform has it (not on Windows, which has no FIFO to open by name either). */
const OPEN_WITHOUT_WAITING = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

export const NOT_REGULAR_FILE = 'TOKENMETER_NOT_REGULAR_FILE';

export class NotRegularFileError extends Error {
  override readonly name = 'NotRegularFileError';
  readonly code = NOT_REGULAR_FILE;
  readonly isFolder: boolean;
  constructor(stats: Stats) {
    super(stats.isDirectory() ? 'it is a folder, not a file' : `it is ${kindOf(stats)}, not a regular file`);
    this.isFolder = stats.isDirectory();
  }
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a file';
}

/** Opens `path` for reading; rejects with NotRegularFileError unless it is a regular file (the handle closed). */
export async function openRegularFile(path: string): Promise<FileHandle> {
  const handle = await open(path, OPEN_WITHOUT_WAITING);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new NotRegularFileError(stats);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The whole text of a regular file (UTF-8). */
export async function readRegularFile(path: string): Promise<string> {
  const handle = await openRegularFile(path);
  try {
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** readRegularFile, for the synchronous readers (--config, a gateway's records files). */
export function readRegularFileSync(path: string): string {
  const fd = openSync(path, OPEN_WITHOUT_WAITING);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new NotRegularFileError(stats);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** Throws unless `path` is a regular file this process can open for reading; reads nothing. */
export async function checkRegularFile(path: string): Promise<Stats> {
  const handle = await openRegularFile(path);
  try {
    return await handle.stat();
  } finally {
    await handle.close();
  }
}

// Why a file could not be read or written, in words ("no such file", "permission denied"), so every command
// names the problem alike instead of passing on node's "ENOENT: no such file or directory, open 'x'".
export function fileErrorReason(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'it is a folder, not a file';
  if (code === 'ENOTDIR') return 'a part of the path is a file, not a folder';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return error instanceof Error ? error.message : String(error);
}
