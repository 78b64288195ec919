// The endpoints the gateway times, and what each one's protocol needs: which classifier reads its stream, whether
// streamed usage must be asked for (OpenAI's `stream_options.include_usage`; Anthropic and Responses streams
// always carry usage), and how the upstream wants its key. Tables read by path canonicalization, the proxy and
// the response forwarder, so adding a protocol is adding rows, not branches.

export interface TimedEndpoint {
  /** Classifier name (src/measure/classifiers.ts). */
  readonly protocol: string;
  /** Streamed usage comes only when asked for with `stream_options.include_usage`. */
  readonly usageOnRequest: boolean;
}

export const TIMED_ENDPOINTS: ReadonlyMap<string, TimedEndpoint> = new Map([
  ['chat/completions', { protocol: 'openai-chat', usageOnRequest: true }],
  ['completions', { protocol: 'openai-completions', usageOnRequest: true }],
  ['messages', { protocol: 'anthropic-messages', usageOnRequest: false }],
  ['responses', { protocol: 'openai-responses', usageOnRequest: false }],
]);

export type UpstreamAuthStyle = 'bearer' | 'anthropic';

/**
 * Endpoint families (first path segment) whose upstreams take Anthropic's `x-api-key` instead of a bearer token:
 * the whole family, so `messages/count_tokens` (which Claude Code calls) is authenticated like `messages`.
 */
const AUTH_BY_FAMILY: ReadonlyMap<string, UpstreamAuthStyle> = new Map([['messages', 'anthropic']]);

export function upstreamAuthStyle(endpoint: string): UpstreamAuthStyle {
  const slash = endpoint.indexOf('/');
  return AUTH_BY_FAMILY.get(slash < 0 ? endpoint : endpoint.slice(0, slash)) ?? 'bearer';
}
