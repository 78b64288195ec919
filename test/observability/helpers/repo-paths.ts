// Files of the source tree the observability tests read (tests run from dist/, the shipped files stay in place).
import { fileURLToPath } from 'node:url';

const ROOT = new URL('../../../../', import.meta.url);

/** Absolute path of a file given relative to the repository root. */
export function repoPath(relative: string): string {
  return fileURLToPath(new URL(relative, ROOT));
}
