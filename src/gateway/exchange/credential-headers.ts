// The request headers a credential travels in, in the LLM APIs the gateway fronts. Stated once: the gateway never
// forwards them upstream (hop-by-hop.ts), and its logger redacts them wherever a log line carries headers.
export const CREDENTIAL_HEADERS: readonly string[] = Object.freeze([
  'authorization',
  'x-api-key', // Anthropic
  'api-key', // Azure OpenAI
  'x-goog-api-key', // Gemini
  'cookie',
  'proxy-authorization',
]);
