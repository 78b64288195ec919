// OpenAI Responses' usage reader, the one both read streamed (`response.completed` and `response.incomplete`) and
// non-streamed answers with: `input_tokens` (cached ones included, counted in `input_tokens_details.cached_tokens`),
// `output_tokens` (reasoning included, counted in `output_tokens_details.reasoning_tokens`).
import { countField } from '../../shared/json-object.js';
import { detailCount, type UsageReader, usageReader } from '../usage.js';

export const readResponsesUsage: UsageReader = usageReader((usage) => ({
  promptTokens: countField(usage, 'input_tokens'),
  cachedPromptTokens: detailCount(usage, 'input_tokens_details', 'cached_tokens'),
  outputTokens: countField(usage, 'output_tokens'),
  reasoningTokens: detailCount(usage, 'output_tokens_details', 'reasoning_tokens'),
}));
