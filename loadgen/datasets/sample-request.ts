// What every dataset produces and every engine sends: a prompt with its measured length and the number of
// output tokens to ask for (sent as max_tokens / max_completion_tokens).

import { UserFacingError } from '../../src/shared/user-facing-error.js';
import type { NumpyRandomState } from '../vllm-random/numpy-random-state.js';
import type { PythonRandom } from '../vllm-random/python-random.js';

export interface SampleRequest {
  prompt: string;
  /** Prompt length by the run's tokenizer (vLLM: `len(tokenizer(prompt).input_ids)`). */
  promptTokens: number;
  /** Output tokens to request. */
  outputTokens: number;
  /** Where it came from (ShareGPT id, JSONL line, random index), for logs and detailed results. */
  sourceId: string;
  /**
   * --shared-system-prompt-length: the run's one system prompt, which the body puts before the prompt in the
   * protocol's own place for it (a system message, `system`, `instructions`, or the completions prompt's start).
   * Its tokens are counted in `promptTokens`.
   */
  systemPrompt?: string;
  /** Set on copies added because the dataset had too few usable entries. */
  oversampled?: true;
  /**
   * Replays of gateway records kept with `--record-bodies`: the client's own request body, sent as it was (with
   * streaming turned on, so its tokens can be timed) instead of a body built from `prompt`.
   */
  recordedBody?: Readonly<Record<string, unknown>>;
}

/** A dataset's result: the requests, plus what the user should be told about how they were chosen. */
export interface SampledDataset {
  requests: SampleRequest[];
  /** Human-readable remarks ("oversampled: ...", "skipped 3 malformed lines: ..."). */
  notes: string[];
  /**
   * Python's global `random` state as vLLM's client leaves it after sampling this dataset (ShareGPT reseeds and
   * shuffles it): its later draws, the LoRA module of each request, continue from here. Absent: the state as
   * `random.seed(seed)` left it (datasets that do not touch it).
   */
  pythonRandom?: PythonRandom;
  /**
   * numpy's legacy global state as vLLM's client leaves it after sampling this dataset (prefix_repetition draws
   * its token ids from it): its arrival gaps continue from here. Absent: the state `np.random.seed(seed)` left.
   */
  numpyRandom?: NumpyRandomState;
}

// ---- Oversampling a short dataset ----
// When a dataset yields fewer usable requests than asked for, vLLM fills up with random duplicates (drawn with
// replacement) rather than running short, and says so. Same here, with vLLM's draws: `random.choice` over the
// usable entries from the Python state the caller passes (vLLM reseeds it with --seed first).

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
