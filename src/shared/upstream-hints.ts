// What an upstream's 400 (context length), 401, 403, 404, 422 or 429 most often means, and what to change. The
// doctor prints these and the gateway puts the same text in its error records and log lines, so both tell the user
// the same thing.

export interface HintContext {
  /** The path that was requested upstream, e.g. `/api/v1/chat/completions`. */
  readonly path?: string;
  /** The model sent upstream. */
  readonly model?: string;
  /** Where the key that was sent came from: a variable's name, a key file, the flag it was typed with. Absent when no
   *  key was sent, so a 401 says "none was sent" rather than blaming a key that never left. */
  readonly keySource?: string;
  /** The upstream's error message (or the start of its body), for statuses whose causes differ by message. */
  readonly errorText?: string;
  /** The header the endpoint takes its key in, as a 401's hint shows it (`x-api-key: <key>`): the protocol
   *  table's, written by src/protocols' keyHeaderShown, so this module never guesses it from the path. */
  readonly keyHeader?: string;
}

/** The "/v1 twice" mistake, worded once for the gateway's path fix, the upstream's 404 hint and the doctor. */
export const DOUBLED_V1 = {
  /** What happens. */
  what: 'a base URL that ends in /v1, given to a client that adds /v1 itself, requests /v1/v1/..., which servers answer 404',
  /** What to do. */
  fix: 'drop /v1 from the base URL that client is given',
} as const;

const CONTEXT_LENGTH = /maximum context length|context length|context_length_exceeded|prompt is too long/i;

/** The benchmark flags (vLLM's, which tokenmeter bench shares) that send each kind of body to its own endpoint.
 *  vLLM's script sends every backend to /v1/completions unless --endpoint says otherwise, so both are named. */
export const BENCHMARK_BACKEND_FLAGS = {
  chat: '--backend openai-chat --endpoint /v1/chat/completions',
  completions: '--backend openai --endpoint /v1/completions',
} as const;

/** An upstream's 404 message that is about the model, not the path (vLLM, the simulator, LiteLLM-style words). */
const UNKNOWN_MODEL = /model_not_found|model\b.*\b(does not exist|not found|unknown|not served|no such)/i;

export function looksLikeFilesystemPath(model: string): boolean {
  return /^(\/|\.{1,2}\/|~\/|[A-Za-z]:\\)/.test(model);
}

/** What to send instead of a model the endpoint does not serve: the doctor passes the served ID it found, bench
 *  and the gateway (which only saw the 404) leave it out. */
export function unservedModelFix(model: string | undefined, servedId?: string): string {
  const what =
    model !== undefined && looksLikeFilesystemPath(model)
      ? `the model '${model}' is a local weights path: send the model ID the server registered`
      : `the model${model ? ` '${model}'` : ''} is not served here: send a model ID that GET /v1/models lists`;
  const flag =
    servedId === undefined ? "--model ID, 'tokenmeter doctor --command' names it" : `--model ${servedId}`;
  return `${what} (benchmark: ${flag})`;
}

export function hintForUpstreamStatus(status: number, context: HintContext = {}): string | undefined {
  const { path = '', model, keySource, errorText = '', keyHeader } = context;
  switch (status) {
    case 400:
      return CONTEXT_LENGTH.test(errorText)
        ? "the prompt plus the output asked for exceed the model's context: lower max_tokens (Claude Code: CLAUDE_CODE_MAX_OUTPUT_TOKENS), shorten the prompt, or raise the server's context (vLLM: --max-model-len)"
        : undefined;
    case 401:
      return keySource
        ? `the upstream refused the key that was sent: check that ${keySource} holds the key this endpoint issued (no quotes, no spaces, not "None")`
        : `the upstream wants a key and none was sent: set one (an environment variable${keyHeader === undefined ? '' : `, sent as "${keyHeader}"`})`;
    case 403:
      return "the key is valid but not allowed here: check the key's permissions, quota or model access at the provider";
    case 404:
      if (path.includes('/v1/v1/')) {
        return `the path has /v1 twice: ${DOUBLED_V1.what}; ${DOUBLED_V1.fix}`;
      }
      if ((model && looksLikeFilesystemPath(model)) || UNKNOWN_MODEL.test(errorText))
        return unservedModelFix(model);
      if (path.endsWith('/completions') && !path.endsWith('/chat/completions')) {
        return `this endpoint may serve only chat: send chat messages to /v1/chat/completions (benchmark: ${BENCHMARK_BACKEND_FLAGS.chat})`;
      }
      return 'not found: check the model ID against GET /v1/models, and that the base URL has no extra path';
    case 422:
      return unprocessableBodyHint(path);
    case 429:
      return 'rate limited: lower the request rate or concurrency, or raise the limit at the provider';
    default:
      return undefined;
  }
}

/** A 422: the body's shape is not the endpoint's. Each endpoint's own fields are named, never another protocol's. */
function unprocessableBodyHint(path: string): string {
  if (path.endsWith('/chat/completions'))
    return `the body does not fit the chat endpoint: send "messages", not "prompt" (benchmark: ${BENCHMARK_BACKEND_FLAGS.chat})`;
  if (path.endsWith('/messages'))
    return 'the body does not fit the Anthropic Messages endpoint: it takes "model", "max_tokens" and "messages" (a top-level "system", not a system message; benchmark: --backend anthropic-messages)';
  if (path.endsWith('/responses'))
    return 'the body does not fit the Responses endpoint: it takes "input" (and "instructions"), not "messages" or "prompt" (benchmark: --backend openai-responses)';
  return 'the body does not fit this endpoint: a completions body ("prompt") goes to /v1/completions, a chat body ("messages") to /v1/chat/completions';
}
