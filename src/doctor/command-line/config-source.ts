// A bench_config.json (the file `tokenmeter bench --config` reads: every key a flag name with '_' for '-') as the
// doctor reads it, the corrected object, and writing it beside the old file under a new name, never over one.
import { writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { fileErrorReason } from '../../shared/regular-file.js';
import { UserFacingError } from '../../shared/user-facing-error.js';
import type { BenchSource, Change } from './bench-source.js';

export type ConfigObject = Record<string, unknown>;

const keyOf = (flag: string): string => flag.replace(/-/g, '_');

export function configSource(config: ConfigObject, env: NodeJS.ProcessEnv): BenchSource {
  return {
    reader: 'tokenmeter',
    value(flag) {
      const value = config[keyOf(flag)];
      if (value === undefined || value === null) return undefined;
      return { text: typeof value === 'string' ? value : JSON.stringify(value), variables: [] };
    },
    has: (flag) => config[keyOf(flag)] !== undefined && config[keyOf(flag)] !== null,
    assignment: () => undefined,
    assigned: [],
    env,
  };
}

/** The object with the changes made, keys kept in their order (a new key goes after the one it belongs with), and
 *  what a JSON file cannot hold (variables to unset in the shell), as lines to print. */
export function applyToConfig(
  config: ConfigObject,
  changes: readonly Change[],
): { config: ConfigObject; shellSteps: string[] } {
  let entries = Object.entries(config);
  const shellSteps: string[] = [];
  const set = (key: string, value: unknown, after?: string): void => {
    const at = entries.findIndex(([k]) => k === key);
    if (at >= 0) {
      entries[at] = [key, value];
      return;
    }
    const anchor = after === undefined ? -1 : entries.findIndex(([k]) => k === after);
    entries.splice(anchor < 0 ? entries.length : anchor + 1, 0, [key, value]);
  };
  for (const change of changes) {
    for (const edit of change.edits) {
      switch (edit.op) {
        case 'set':
          set(keyOf(edit.flag), edit.value.text, edit.after === undefined ? undefined : keyOf(edit.after));
          break;
        case 'remove':
          entries = entries.filter(([k]) => k !== keyOf(edit.flag));
          break;
        case 'key-variable':
          set('api_key_env', edit.variable, 'api_key');
          entries = entries.filter(([k]) => k !== 'api_key');
          break;
        case 'drop-assignment':
          break;
        case 'unset-env':
          shellSteps.push(
            `run it with: env ${edit.variables.map((n) => `-u ${n}`).join(' ')} tokenmeter bench ...`,
          );
          break;
      }
    }
  }
  return { config: Object.fromEntries(entries), shellSteps };
}

/** A change's reason in the file's terms: the flags named before its first ': ' become keys (`--base-url` ->
 *  `base_url`); the finding after it is the checklist's, quoted as is. */
export function inConfigTerms(why: string): string {
  const at = why.indexOf(': ');
  const what = at < 0 ? why : why.slice(0, at);
  return `${what.replace(/--([a-z][a-z-]*)/g, (_, name: string) => keyOf(name))}${at < 0 ? '' : why.slice(at)}`;
}

/** `bench_config.json` -> `bench_config.fixed.json` (then `.fixed-2.json`, ...): the first name not taken. */
export function writeBeside(path: string, config: ConfigObject): string {
  const ext = extname(path) || '.json';
  const stem = basename(path, extname(path));
  const text = `${JSON.stringify(config, null, 2)}\n`;
  for (let n = 1; n < 100; n++) {
    const candidate = join(dirname(path), `${stem}.fixed${n === 1 ? '' : `-${n}`}${ext}`);
    try {
      writeFileSync(candidate, text, { flag: 'wx' });
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new UserFacingError(`--apply: cannot write ${candidate}: ${fileErrorReason(error)}`, {
        cause: error,
      });
    }
  }
  throw new UserFacingError(`--apply: ${stem}.fixed.json to ${stem}.fixed-99${ext} all exist; remove some`);
}
