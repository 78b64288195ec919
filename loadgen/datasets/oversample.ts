// When a dataset yields fewer usable requests than asked for, vLLM fills up with random duplicates (drawn with
// replacement) rather than running short, and says so. Same here, from the run's seed.

import { hashSeed, SeededRandom } from '../../src/shared/random.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';
import type { SampleRequest } from './sample-request.js';

/** Returns a note when copies were added, otherwise undefined. Mutates `requests`. `dropped` says why the other
 *  entries were not usable (e.g. "of 11 entries: 4 malformed, 6 dropped by vLLM's length filter ..."). */
export function oversample(
  requests: SampleRequest[],
  wanted: number,
  seed: number,
  datasetName: string,
  dropped?: string,
): string | undefined {
  const found = requests.length;
  if (found >= wanted) return undefined;
  if (found === 0) {
    throw new UserFacingError(
      `${datasetName}: no entry passed the filters, so no request can be sent. Check the file and the length limits.`,
    );
  }
  const random = new SeededRandom(hashSeed('oversample', seed));
  for (let i = found; i < wanted; i++) {
    const original = requests[random.int(0, found - 1)] as SampleRequest;
    requests.push({ ...original, oversampled: true });
  }
  const usable = `${found} usable ${found === 1 ? 'entry' : 'entries'}`;
  const why = dropped === undefined || dropped === '' ? '' : ` (${dropped})`;
  return `oversampled: only ${usable} for ${wanted} requests${why}; ${wanted - found} duplicates added`;
}
