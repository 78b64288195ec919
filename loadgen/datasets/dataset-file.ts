// The file --dataset-path names, checked before it is streamed: a typo, a folder, a file this user cannot read or
// an empty file is one line that says what to do, not an ENOENT stack from the stream that would have read it.

import type { Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { UserFacingError } from '../../src/shared/user-facing-error.js';

/** Throws a UserFacingError unless `path` is a non-empty file this process can read. */
export async function checkDatasetFile(path: string, whatItHolds: string): Promise<void> {
  const flag = `--dataset-path ${path}`;
  let stats: Stats;
  try {
    const file = await open(path, 'r');
    try {
      stats = await file.stat();
    } finally {
      await file.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      // The article's bench_config.json is a settings file: named here, it was meant for --config.
      const hint = /config/i.test(basename(path)) ? '; a settings file goes to --config' : '';
      throw new UserFacingError(`${flag}: no such file${hint}`, { cause: error });
    }
    if (code === 'EACCES' || code === 'EPERM')
      throw new UserFacingError(`${flag}: this user may not read it (${code})`, { cause: error });
    throw new UserFacingError(`${flag}: cannot be read (${(error as Error).message})`, { cause: error });
  }
  if (stats.isDirectory()) throw new UserFacingError(`${flag} is a folder: name the file in it`);
  if (!stats.isFile()) throw new UserFacingError(`${flag} is not a regular file`);
  if (stats.size === 0) throw new UserFacingError(`${flag} is empty: expected ${whatItHolds}`);
}
