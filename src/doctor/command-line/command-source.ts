// A benchmark command line as the doctor reads it (a BenchSource), and the corrected command line written back:
// what was not changed is reprinted as typed, one flag per line; a key is only ever printed as a variable reference.
import {
  type Assignment,
  type BenchFlagKinds,
  type BenchInvocation,
  type Flag,
  flagValue,
  parseBenchCommand,
} from './bench-invocation.js';
import { type BenchSource, type Change, KEY_LIKE, type NewValue } from './bench-source.js';
import { type ShellWord, shellQuote, variableWord } from './shell-words.js';

export function commandSource(invocation: BenchInvocation, shellEnv: NodeJS.ProcessEnv): BenchSource {
  const env: NodeJS.ProcessEnv = { ...shellEnv };
  for (const name of invocation.unset) delete env[name];
  for (const a of invocation.assignments) env[a.name] = a.text;
  return {
    reader: 'vllm',
    form: invocation.form,
    value: (flag) => flagValue(invocation, flag),
    has: (flag) => invocation.flags.some((f) => f.name === flag),
    assignment: (name) => invocation.assignments.find((a) => a.name === name),
    assigned: invocation.assignments.map((a) => a.name),
    env,
  };
}

export function readCommand(
  line: string,
  env: NodeJS.ProcessEnv,
  kinds: BenchFlagKinds,
): BenchSource & { invocation: BenchInvocation } {
  const invocation = parseBenchCommand(line, env, kinds);
  return { ...commandSource(invocation, env), invocation };
}

function word(value: NewValue): ShellWord {
  const raw = value.variable === undefined ? shellQuote(value.text) : variableWord(value.variable);
  return { raw, text: value.text, variables: value.variable === undefined ? [] : [value.variable] };
}

/** The invocation with the changes made: flags replaced in place, new ones after the flag they belong with. */
export function applyToCommand(invocation: BenchInvocation, changes: readonly Change[]): BenchInvocation {
  let flags: Flag[] = [...invocation.flags];
  let assignments: Assignment[] = [...invocation.assignments];
  const unset = [...invocation.unset];
  const set = (name: string, values: ShellWord[], after?: string): void => {
    const at = flags.findIndex((f) => f.name === name);
    if (at >= 0) {
      flags = flags.filter((f, i) => f.name !== name || i === at);
      flags[at] = { name, values };
      return;
    }
    const anchor = after === undefined ? -1 : flags.findIndex((f) => f.name === after);
    flags.splice(anchor < 0 ? flags.length : anchor + 1, 0, { name, values });
  };
  for (const change of changes) {
    for (const edit of change.edits) {
      switch (edit.op) {
        case 'set':
          set(edit.flag, [word(edit.value)], edit.after);
          break;
        case 'remove':
          flags = flags.filter((f) => f.name !== edit.flag);
          break;
        case 'key-variable': {
          const ref = word({ text: '', variable: edit.variable });
          if (flags.some((f) => f.name === 'api-key')) set('api-key', [ref]);
          else if (flags.some((f) => f.name === 'api-key-env'))
            set('api-key-env', [word({ text: edit.variable })]);
          else if (edit.variable === 'OPENAI_API_KEY') {
            // Read from the shell, where the user exports it: no assignment in front.
            assignments = assignments.filter((a) => a.name !== 'OPENAI_API_KEY');
          } else {
            // vLLM's benchmark has no key flag: it sends OPENAI_API_KEY, so that is the variable to fill.
            const assignment = { name: 'OPENAI_API_KEY', raw: ref.raw, text: '', variables: ref.variables };
            assignments = [...assignments.filter((a) => a.name !== 'OPENAI_API_KEY'), assignment];
          }
          break;
        }
        case 'drop-assignment':
          assignments = assignments.filter((a) => a.name !== edit.variable);
          break;
        case 'unset-env':
          for (const name of edit.variables) {
            if (assignments.some((a) => a.name === name))
              assignments = assignments.filter((a) => a.name !== name);
            else if (!unset.includes(name)) unset.push(name);
          }
          break;
      }
    }
  }
  return { ...invocation, flags, assignments, unset };
}

// A key typed as is never leaves the doctor: plan-fixes replaces each one with a variable, and these two guards keep
// a value the plan did not foresee from being printed.
function safeRaw(flag: Flag, value: ShellWord): string {
  return flag.name === 'api-key' && value.variables.length === 0 ? '"$OPENAI_API_KEY"' : value.raw;
}

function safeAssignment(a: Assignment): string {
  return KEY_LIKE.test(a.name) && a.variables.length === 0 ? `${a.name}="$${a.name}"` : `${a.name}=${a.raw}`;
}

/** The command line, one flag per line with `\` continuations, ready to paste into a POSIX shell. */
export function formatCommand(invocation: BenchInvocation): string {
  const head: string[] = [];
  if (invocation.unset.length > 0) head.push('env', ...invocation.unset.flatMap((n) => ['-u', n]));
  for (const a of invocation.assignments) head.push(safeAssignment(a));
  head.push(...invocation.launcher.map((w) => w.raw));
  const lines = [head.join(' ')];
  for (const flag of invocation.flags) {
    lines.push(`  --${flag.name}${flag.values.map((v) => ` ${safeRaw(flag, v)}`).join('')}`);
  }
  const last = lines.length - 1;
  if (invocation.tail !== '') lines[last] = `${lines[last]} ${invocation.tail}`;
  return lines.join(' \\\n');
}
