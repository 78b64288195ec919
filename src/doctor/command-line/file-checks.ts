// The local files a benchmark's settings make it read (tokenizer, dataset), as checklist lines: the run's own
// sentence for what would stop it, or that its program can read the file. The problems are found by the load
// generator's checks (loadgen/bench/input-checks.ts), handed in: the doctor does not import the load generator.
import { type CheckResult, check } from '../check.js';
import type { NamedFiles } from './plan-fixes.js';

/** What would stop the run at its first step, in the run's own words (loadgen's FileProblem has this shape). */
export interface FileProblem {
  readonly file: 'tokenizer' | 'dataset';
  readonly problem: string;
}

export type FileProblems = (files: NamedFiles) => Promise<readonly FileProblem[]>;

const FILE_TITLES = { tokenizer: 'Tokenizer file', dataset: 'Dataset file' } as const;

/** One checklist line per file the settings name: failing with the run's sentence, or passing. */
export async function fileChecks(files: NamedFiles, problemsOf: FileProblems): Promise<CheckResult[]> {
  const program = files.reader === 'vllm' ? "vLLM's benchmark" : 'bench';
  const problems = await problemsOf(files);
  const named = [
    ...(files.tokenizer === undefined ? [] : ['tokenizer' as const]),
    ...(files.datasetPath === undefined ? [] : ['dataset' as const]),
  ];
  return named.map((file) => {
    const problem = problems.find((p) => p.file === file);
    return problem === undefined
      ? check(
          `${file}-file`,
          FILE_TITLES[file],
          'pass',
          `${program} can read ${file === 'tokenizer' ? files.tokenizer : files.datasetPath}`,
        )
      : check(
          `${file}-file`,
          FILE_TITLES[file],
          'fail',
          problem.problem,
          `correct the path: ${program} stops at this before it sends anything`,
        );
  });
}
