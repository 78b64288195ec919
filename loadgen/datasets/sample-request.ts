// What every dataset produces and every engine sends: a prompt with its measured length and the number of
// output tokens to ask for (sent as max_tokens / max_completion_tokens).

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
