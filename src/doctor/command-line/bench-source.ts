// One view over the two forms a benchmark's settings come in, a command line and a JSON config, so the doctor reads
// both with one piece of code; and the changes it makes to them, in the same terms, for each form to apply.
import type { BenchForm } from './bench-invocation.js';

/** Names of variables that hold secrets by convention: their values are never printed. */
export const KEY_LIKE = /(_API_KEY|_KEY|_TOKEN|SECRET|PASSWORD)$/;

export interface SettingValue {
  readonly text: string;
  /** Environment variables the value came from (`"$TAOTOKEN_BASE_URL"`); empty for a value typed as is. */
  readonly variables: readonly string[];
}

export interface BenchSource {
  /** How the settings are read: vLLM's benchmark (every backend to /v1/completions unless --endpoint says
   *  otherwise, key from OPENAI_API_KEY) or `tokenmeter bench --config` (each backend to its own endpoint). */
  readonly reader: 'vllm' | 'tokenmeter';
  /** For a command line: which of vLLM's programs (their --backend defaults differ). */
  readonly form?: BenchForm;
  /** A flag's value by its dashed name, or undefined when absent. */
  value(flag: string): SettingValue | undefined;
  has(flag: string): boolean;
  /** A variable assigned in front of the command (`OPENAI_API_KEY=... python ...`); never for a config. */
  assignment(name: string): SettingValue | undefined;
  /** The names assigned in front of the command, in order; none for a config. */
  readonly assigned: readonly string[];
  /** The environment the benchmark would run with: the shell's, with the command's assignments and `env -u`. */
  readonly env: NodeJS.ProcessEnv;
}

/** A value to write: the literal, and the variable to reference instead where the form can (a command line). */
export interface NewValue {
  readonly text: string;
  readonly variable?: string;
}

export type Edit =
  | { readonly op: 'set'; readonly flag: string; readonly value: NewValue; readonly after?: string }
  | { readonly op: 'remove'; readonly flag: string }
  /** Send the key held by this variable, in the form's way (--api-key "$VAR", OPENAI_API_KEY="$VAR", api_key_env). */
  | { readonly op: 'key-variable'; readonly variable: string }
  | { readonly op: 'unset-env'; readonly variables: readonly string[] }
  /** A command line's `NAME=value` in front, removed: the variable is to come from the user's shell. */
  | { readonly op: 'drop-assignment'; readonly variable: string };

export interface Change {
  /** One line: what changes, and why (the doctor's own finding). */
  readonly why: string;
  readonly edits: readonly Edit[];
}
