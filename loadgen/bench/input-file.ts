// A file a run reads (--dataset-path, --gateway-records), checked before anything is sent: a typo, a folder, a
// file this user cannot read or an empty file is one line that names the flag and says what was expected, not an
// ENOENT stack from the stream that would have read it.

import type { Stats } from 'node:fs';
import { basename } from 'node:path';
import { checkRegularFile, fileErrorReason, NotRegularFileError } from '../../src/shared/regular-file.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';

/**
 * Throws a UserFacingError unless `path` is a file this process can read, and not empty unless `mayBeEmpty` (a
 * gateway's records file exists from the gateway's start, empty until its first request ends, and is read when
 * the run is over).
 */
export async function checkInputFile(
  flag: string,
  path: string,
  whatItHolds: string,
  mayBeEmpty = false,
): Promise<void> {
  const named = `${flag} ${path}`;
  let stats: Stats;
  try {
    stats = await checkRegularFile(path);
  } catch (error) {
    if (error instanceof NotRegularFileError) {
      const what = error.isFolder ? ' is a folder: name the file in it' : `: ${error.message}`;
      throw new UserFacingError(`${named}${what}`, { cause: error });
    }
    // The article's bench_config.json is a settings file: named here, it was meant for --config.
    const hint =
      (error as NodeJS.ErrnoException).code === 'ENOENT' && /config/i.test(basename(path))
        ? '; a settings file goes to --config'
        : '';
    throw new UserFacingError(`${named}: ${fileErrorReason(error)}${hint}`, { cause: error });
  }
  if (stats.size === 0 && !mayBeEmpty)
    throw new UserFacingError(`${named} is empty: expected ${whatItHolds}`);
}
