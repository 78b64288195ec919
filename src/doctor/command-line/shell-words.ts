// A benchmark command line as a POSIX shell would split it: quotes, backslashes, `$VAR` and `${VAR}` expanded from
// the environment the doctor runs in (the same shell the benchmark would run in). Each word keeps the text it was
// typed as, so a corrected command can reprint what it did not change exactly, `"$TAOTOKEN_API_KEY"` included,
// without ever printing the value behind it. A pipe, a redirection or `;` ends the command: the rest is kept as it
// was typed (`2>&1 | tee bench.log`). Command substitution is refused: evaluating it would run code.
import { UsageError } from '../../shared/user-facing-error.js';

export interface ShellWord {
  /** The word as typed, quotes included. */
  readonly raw: string;
  /** The word as the program receives it. */
  readonly text: string;
  /** Variables expanded into it, in order (so `--api-key "$KEY"` is known to come from KEY). */
  readonly variables: readonly string[];
}

export interface ShellLine {
  readonly words: readonly ShellWord[];
  /** From the first unquoted `|`, `;`, `&`, `<` or `>` on, as typed; '' when there is none. */
  readonly tail: string;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const ENDS_COMMAND = new Set(['|', ';', '&', '<', '>']);

export function splitShellWords(line: string, env: NodeJS.ProcessEnv): ShellLine {
  const words: ShellWord[] = [];
  let i = 0;
  let start = -1;
  let text = '';
  let variables: string[] = [];
  let quoted = false;
  const finish = (end: number): void => {
    if (start >= 0) words.push({ raw: line.slice(start, end).trim(), text, variables });
    start = -1;
    text = '';
    variables = [];
    quoted = false;
  };
  const expand = (at: number): number => {
    const braced = line[at + 1] === '{';
    const rest = line.slice(at + (braced ? 2 : 1));
    if (rest.startsWith('('))
      throw new UsageError('--command: $(...) cannot be checked: paste the command with its values');
    const name = NAME.exec(rest)?.[0];
    if (name === undefined) {
      text += '$';
      return at + 1;
    }
    if (braced && rest[name.length] !== '}')
      throw new UsageError(`--command: \${${name}...} is not supported: use plain $${name}`);
    variables.push(name);
    text += env[name] ?? '';
    return at + (braced ? 3 : 1) + name.length;
  };
  while (i < line.length) {
    const c = line[i] as string;
    if (c === '\\') {
      const next = line[i + 1];
      // A backslash before a line break continues the line; before a space it is what a pasted multi-line
      // command becomes when a web page folds its lines (the article's commands read `... \ --tokenizer ...`).
      if (next === undefined || /\s/.test(next)) {
        finish(i);
        i += 2;
        continue;
      }
      if (start < 0) start = i;
      text += next;
      i += 2;
      continue;
    }
    if (/\s/.test(c)) {
      finish(i);
      i++;
      continue;
    }
    if (ENDS_COMMAND.has(c)) {
      // `2>&1`: the digits before a redirection belong to it.
      const tailStart = start >= 0 && !quoted && /^\d+$/.test(text) ? start : i;
      if (tailStart === i) finish(i);
      return { words, tail: line.slice(tailStart).trim() };
    }
    if (c === '`')
      throw new UsageError('--command: `...` cannot be checked: paste the command with its values');
    if (start < 0) {
      if (c === '#') break;
      start = i;
    }
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new UsageError('--command: a single quote is not closed');
      text += line.slice(i + 1, end);
      quoted = true;
      i = end + 1;
    } else if (c === '"') {
      quoted = true;
      i++;
      while (line[i] !== '"') {
        const d = line[i];
        if (d === undefined) throw new UsageError('--command: a double quote is not closed');
        if (d === '\\' && '"\\$`\n'.includes(line[i + 1] ?? '')) {
          if (line[i + 1] !== '\n') text += line[i + 1];
          i += 2;
        } else if (d === '$') {
          i = expand(i);
        } else if (d === '`') {
          throw new UsageError('--command: `...` cannot be checked: paste the command with its values');
        } else {
          text += d;
          i++;
        }
      }
      i++;
    } else if (c === '$') {
      i = expand(i);
    } else {
      text += c;
      i++;
    }
  }
  finish(line.length);
  return { words, tail: '' };
}

/** A value as a shell word: bare when it is safe so, else single-quoted. */
export function shellQuote(value: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A reference to a variable, double-quoted as the article writes them. */
export function variableWord(name: string): string {
  return `"$${name}"`;
}
