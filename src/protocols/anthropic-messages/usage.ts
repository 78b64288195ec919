// Anthropic Messages' usage reader, the one both read streamed (message_start's and message_delta's halves) and
// non-streamed answers with. Its `input_tokens` excludes the prompt tokens read from or written to the cache, which
// it reports beside it: all three are prompt tokens (cache writes priced at the input price here, although
// Anthropic charges them more), and the cache reads are the cached ones. `output_tokens` includes thinking, which
// it does not count apart.
import { countField } from '../../shared/json-object.js';
import { type UsageReader, usageReader } from '../usage.js';

export const readMessagesUsage: UsageReader = usageReader((usage) => {
  const input = countField(usage, 'input_tokens');
  const cacheRead = countField(usage, 'cache_read_input_tokens');
  const cacheWrite = countField(usage, 'cache_creation_input_tokens');
  return {
    promptTokens: input === undefined ? undefined : input + (cacheRead ?? 0) + (cacheWrite ?? 0),
    cachedPromptTokens: cacheRead,
    outputTokens: countField(usage, 'output_tokens'),
  };
});
