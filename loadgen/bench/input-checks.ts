// The local files a bench (or vLLM's benchmark) will read, checked without reading them whole: the tokenizer
// folder or file and the dataset file, with the very checks a run makes before it sends anything (so the doctor,
// which asks this of a command or config, and bench say the same sentence).

import { UserFacingError } from '../../src/shared/user-facing-error.js';
import { locateTokenizer } from '../tokenizer/hf-tokenizer.js';
import { BUILTIN_TOKENIZER_NAME } from '../tokenizer/tokenizer.js';
import { checkDatasetFiles, DATASET_NAMES, type DatasetName } from './load-dataset.js';

export interface BenchFiles {
  /** --tokenizer (for vLLM's benchmark, --tokenizer or else a --model that is a local path). */
  readonly tokenizer?: string;
  readonly datasetName?: string;
  readonly datasetPath?: string;
}

export interface FileProblem {
  /** `tokenizer` or `dataset`. */
  readonly file: 'tokenizer' | 'dataset';
  /** The run's own sentence: what is wrong and what to do. */
  readonly problem: string;
}

async function problemOf(check: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await check();
    return undefined;
  } catch (error) {
    if (error instanceof UserFacingError) return error.message;
    throw error;
  }
}

const isDatasetName = (name: string): name is DatasetName =>
  (DATASET_NAMES as readonly string[]).includes(name);

/** What would stop the run at its first step; empty when both files are there (or none is named). */
export async function benchFileProblems(files: BenchFiles): Promise<FileProblem[]> {
  const problems: FileProblem[] = [];
  const { tokenizer } = files;
  if (tokenizer !== undefined && tokenizer !== '' && tokenizer !== BUILTIN_TOKENIZER_NAME) {
    const problem = await problemOf(() => locateTokenizer(tokenizer));
    if (problem !== undefined) problems.push({ file: 'tokenizer', problem });
  }
  const name = files.datasetName ?? 'sharegpt';
  if (files.datasetPath !== undefined && isDatasetName(name)) {
    const path = files.datasetPath;
    const problem = await problemOf(() => checkDatasetFiles({ name, path }));
    if (problem !== undefined) problems.push({ file: 'dataset', problem });
  }
  return problems;
}
