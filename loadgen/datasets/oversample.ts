// When a dataset yields fewer usable requests than asked for, vLLM fills up with random duplicates (drawn with
// replacement) rather than running short, and says so. Same here, with vLLM's draws: `random.choice` over the
// usable entries from the Python state the caller passes (vLLM reseeds it with --seed first).

import { UserFacingError } from '../../src/shared/user-facing-error.js';
import type { PythonRandom } from '../vllm-random/python-random.js';
import type { SampleRequest } from './sample-request.js';

/** Returns a note when copies were added, otherwise undefined. Mutates `requests`. `dropped` says why the other
 *  entries were not usable (e.g. "of 11 entries: 4 malformed, 6 dropped by vLLM's length filter ..."). */
export function oversample(
  requests: SampleRequest[],
  wanted: number,
  random: PythonRandom,
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
  const usable = requests.slice();
  for (let i = found; i < wanted; i++) requests.push({ ...random.choice(usable), oversampled: true });
  const what = `${found} usable ${found === 1 ? 'entry' : 'entries'}`;
  const why = dropped === undefined || dropped === '' ? '' : ` (${dropped})`;
  return `oversampled: only ${what} for ${wanted} requests${why}; ${wanted - found} duplicates added`;
}
