// OpenAI chat completions' and completions' usage reader, the one both read streamed (the usage chunk, or vLLM's
// running usage on every chunk) and non-streamed answers with: `prompt_tokens` (cached ones included, counted in
// `prompt_tokens_details.cached_tokens`), `completion_tokens` (reasoning included, counted in
// `completion_tokens_details.reasoning_tokens`).

import { countField } from '../../shared/json-object.js';
import { detailCount, type UsageReader, usageReader } from '../usage.js';

export const readChoicesUsage: UsageReader = usageReader((usage) => ({
  promptTokens: countField(usage, 'prompt_tokens'),
  cachedPromptTokens: detailCount(usage, 'prompt_tokens_details', 'cached_tokens'),
  outputTokens: countField(usage, 'completion_tokens'),
  reasoningTokens: detailCount(usage, 'completion_tokens_details', 'reasoning_tokens'),
}));
