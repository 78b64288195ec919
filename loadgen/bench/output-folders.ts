// Where a run will write (records file, result JSON, HTML page), checked before the first request is sent: a
// folder this user cannot write to is one line naming the flag, not an EACCES stack after a run whose records
// were never kept. Nothing is created here; the writers create missing folders when they write.

import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UserFacingError } from '../../src/shared/user-facing-error.js';
import type { BenchSettings } from './settings.js';

/** A folder a run writes into, and the flag that chose it (named in the error). */
export interface OutputFolder {
  readonly flag: string;
  readonly folder: string;
}

/** The folders `bench` writes into with these settings: the records file's, the result's, the page's. */
export function benchOutputFolders(settings: BenchSettings, htmlPath: string | undefined): OutputFolder[] {
  const folders: OutputFolder[] = [];
  // The records file is named after the result file and lies beside it unless --records-file says otherwise.
  if (settings.recordsFile === undefined || settings.save.result)
    folders.push({ flag: `--result-dir ${settings.save.dir}`, folder: settings.save.dir });
  if (typeof settings.recordsFile === 'string')
    folders.push({ flag: `--records-file ${settings.recordsFile}`, folder: dirname(settings.recordsFile) });
  if (htmlPath !== undefined) folders.push({ flag: `--html ${htmlPath}`, folder: dirname(htmlPath) });
  return folders;
}

/** The folders `sweep` writes into: every level's result and records, the summary, the page. */
export function sweepOutputFolders(settings: BenchSettings, htmlPath: string | undefined): OutputFolder[] {
  return [
    { flag: `--result-dir ${settings.save.dir}`, folder: settings.save.dir },
    ...(htmlPath === undefined ? [] : [{ flag: `--html ${htmlPath}`, folder: dirname(htmlPath) }]),
  ];
}

/** The folder itself, or the closest of its parents that exists (the one a writer would create it in). */
function closestExisting(folder: string): { path: string; isDirectory: boolean } {
  let path = resolve(folder);
  for (;;) {
    try {
      return { path, isDirectory: statSync(path).isDirectory() };
    } catch (error) {
      const parent = dirname(path);
      const code = (error as NodeJS.ErrnoException).code;
      // ENOTDIR: a file stands where a folder of the path should be; going up finds it and says so.
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || parent === path) throw error;
      path = parent;
    }
  }
}

/** Throws a UserFacingError for the first folder that cannot be created or written. */
export function checkOutputFolders(folders: readonly OutputFolder[]): void {
  for (const { flag, folder } of folders) {
    let existing: { path: string; isDirectory: boolean };
    try {
      existing = closestExisting(folder);
    } catch (error) {
      throw new UserFacingError(`${flag}: cannot use ${folder} (${(error as Error).message})`, {
        cause: error,
      });
    }
    if (!existing.isDirectory)
      throw new UserFacingError(`${flag}: ${existing.path} is a file, not a folder; choose another place`);
    try {
      accessSync(existing.path, constants.W_OK | constants.X_OK);
    } catch (error) {
      throw new UserFacingError(
        `${flag}: this user cannot write in ${existing.path} (${(error as NodeJS.ErrnoException).code}); choose a folder it owns, e.g. a mounted volume`,
        { cause: error },
      );
    }
  }
}
