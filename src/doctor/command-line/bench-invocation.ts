// A vLLM benchmark command line, read into its parts: `env -u` removals and `NAME=value` assignments in front, the
// launcher (`python benchmark_serving.py`, `python3 -m ...`, `vllm bench serve`), its flags (`--flag value` or
// `--flag=value`) in the order typed, and what follows the command (`2>&1 | tee ...`).
import { UsageError } from '../../shared/user-facing-error.js';
import { type ShellWord, splitShellWords } from './shell-words.js';

export type BenchForm = 'benchmark_serving.py' | 'vllm bench serve';

export interface Assignment {
  readonly name: string;
  /** The value as typed after `=` (quotes included) and as the program sees it. */
  readonly raw: string;
  readonly text: string;
  readonly variables: readonly string[];
}

export interface Flag {
  /** Without the dashes: `base-url`. */
  readonly name: string;
  readonly values: readonly ShellWord[];
}

export interface BenchInvocation {
  readonly form: BenchForm;
  readonly unset: readonly string[];
  readonly assignments: readonly Assignment[];
  readonly launcher: readonly ShellWord[];
  readonly flags: readonly Flag[];
  readonly tail: string;
}

/**
 * How bench's flags take their values, handed in by the CLI from bench's option table (src/cli/bench-options.ts,
 * a superset of vLLM's), so a flag bench gains is read right here too: `switches` take none (vLLM's store_true
 * ones and bench's own), `multiValue` take every word up to the next flag (vLLM's nargs='+': --goodput,
 * --metadata, --header, --lora-modules), the rest take one.
 */
export interface BenchFlagKinds {
  readonly switches: ReadonlySet<string>;
  readonly multiValue: ReadonlySet<string>;
}

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=/;

function launcherEnd(words: readonly ShellWord[]): { form: BenchForm; end: number } | undefined {
  for (let i = 0; i < words.length; i++) {
    const text = words[i]?.text ?? '';
    if (/(^|\/)benchmark_serving\.py$/.test(text) || text === 'benchmarks.benchmark_serving')
      return { form: 'benchmark_serving.py', end: i + 1 };
    if (/(^|\/)vllm$/.test(text) && words[i + 1]?.text === 'bench' && words[i + 2]?.text === 'serve')
      return { form: 'vllm bench serve', end: i + 3 };
  }
  return undefined;
}

export function parseBenchCommand(
  line: string,
  env: NodeJS.ProcessEnv,
  kinds: BenchFlagKinds,
): BenchInvocation {
  const { words, tail } = splitShellWords(line, env);
  const found = launcherEnd(words);
  if (found === undefined) {
    throw new UsageError(
      "--command: not a vLLM benchmark command: expected 'python benchmark_serving.py ...' or 'vllm bench serve ...'",
    );
  }
  let i = 0;
  const unset: string[] = [];
  const assignments: Assignment[] = [];
  if (words[0]?.text === 'env') {
    i = 1;
    while (words[i]?.text === '-u' && words[i + 1] !== undefined) {
      unset.push((words[i + 1] as ShellWord).text);
      i += 2;
    }
  }
  for (; i < found.end; i++) {
    const word = words[i] as ShellWord;
    const name = ASSIGNMENT.exec(word.raw)?.[1];
    if (name === undefined) break;
    assignments.push({
      name,
      raw: word.raw.slice(name.length + 1),
      text: word.text.slice(name.length + 1),
      variables: word.variables,
    });
  }
  const launcher = words.slice(i, found.end);
  const flags: Flag[] = [];
  for (let j = found.end; j < words.length; ) {
    const word = words[j] as ShellWord;
    if (!word.text.startsWith('--')) {
      throw new UsageError(`--command: '${word.text}' is not a flag (flags start with --)`);
    }
    const eq = word.text.indexOf('=');
    if (eq > 0) {
      // --flag=value: the value's own raw text is what follows '=' in the typed word.
      const rawEq = word.raw.indexOf('=');
      flags.push({
        name: word.text.slice(2, eq),
        values: [
          { raw: word.raw.slice(rawEq + 1), text: word.text.slice(eq + 1), variables: word.variables },
        ],
      });
      j++;
      continue;
    }
    const name = word.text.slice(2);
    const values: ShellWord[] = [];
    j++;
    if (!kinds.switches.has(name)) {
      while (j < words.length && !(words[j] as ShellWord).text.startsWith('--')) {
        values.push(words[j] as ShellWord);
        j++;
        if (!kinds.multiValue.has(name)) break;
      }
    }
    flags.push({ name, values });
  }
  return { form: found.form, unset, assignments, launcher, flags, tail };
}

/** The last value given for `name` (argparse keeps the last), or undefined. */
export function flagValue(invocation: BenchInvocation, name: string): ShellWord | undefined {
  const given = invocation.flags.filter((f) => f.name === name);
  return given[given.length - 1]?.values[0];
}
