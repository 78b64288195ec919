// Which key is sent (as `Authorization: Bearer ...`, or `x-api-key` for Anthropic): --api-key, else the variable
// named by --api-key-env, else the backend's usual variable (OPENAI_API_KEY, what vLLM's script reads, or
// ANTHROPIC_API_KEY), else none. vLLM's script sent the literal "Bearer None" when the
// variable was unset and the server answered 401 with no hint; here an empty or unset source is named instead.

import { UserFacingError } from '../../src/shared/user-facing-error.js';

export interface KeyInput {
  /** --api-key as typed; '' when the shell expanded an unset variable. */
  readonly apiKey?: string;
  readonly apiKeyEnv?: string;
  /** Read when neither flag is given: the backend's usual variable (BackendSpec.keyEnv). */
  readonly fallbackEnv: string;
  /** The run sends nothing (--estimate): the key is not read, so a variable not set in this shell is no error. */
  readonly sendsNothing?: boolean;
}

export interface ResolvedKey {
  readonly key: string | undefined;
  /** Where it came from, for the run's header lines (never the key itself). */
  readonly source: string;
}

export function resolveApiKey(input: KeyInput, env: NodeJS.ProcessEnv): ResolvedKey {
  if (input.sendsNothing === true) return { key: undefined, source: 'not read (nothing is sent)' };
  if (input.apiKey !== undefined) {
    if (input.apiKey.trim() === '') {
      throw new UserFacingError(
        '--api-key is empty: the shell variable you passed (e.g. "$TAOTOKEN_API_KEY") is probably not set in this ' +
          'shell. Export it, or use --api-key-env VAR so tokenmeter names the variable it could not find.',
      );
    }
    return { key: input.apiKey.trim(), source: '--api-key' };
  }
  if (input.apiKeyEnv !== undefined) {
    const value = env[input.apiKeyEnv];
    if (value === undefined || value.trim() === '') {
      throw new UserFacingError(
        `--api-key-env ${input.apiKeyEnv}: the variable ${input.apiKeyEnv} is ${value === undefined ? 'not set' : 'empty'}, so ` +
          `there is no key to send (vLLM's script would send "Bearer None" and get 401). Run: export ${input.apiKeyEnv}=...`,
      );
    }
    return { key: value.trim(), source: `$${input.apiKeyEnv}` };
  }
  const fallback = env[input.fallbackEnv];
  if (fallback !== undefined && fallback.trim() !== '')
    return { key: fallback.trim(), source: `$${input.fallbackEnv}` };
  return { key: undefined, source: 'none (no key header is sent)' };
}
