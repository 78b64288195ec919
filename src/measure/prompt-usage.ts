// The prompt side of a `usage` object, read one way for streamed and non-streamed answers: how many prompt tokens
// the upstream processed and how many of them it read from its prompt cache (priced lower by hosted APIs, see
// src/gateway/config/model-prices.ts). The two families count differently: OpenAI's prompt count includes the
// cached tokens (`prompt_tokens_details.cached_tokens`, Responses' `input_tokens_details.cached_tokens`);
// Anthropic's `input_tokens` excludes both cache reads and cache writes, which it reports beside it. Either way
// the result's promptTokens is every prompt token and cachedPromptTokens the part read from the cache.
import { countField, field, isJsonObject, type JsonObject } from '../shared/json-object.js';

export interface PromptUsage {
  readonly promptTokens: number | undefined;
  /** Undefined when the upstream did not say (no cache, or an API that does not report it). */
  readonly cachedPromptTokens: number | undefined;
}

export type PromptUsageReader = (usage: JsonObject) => PromptUsage;

function detailsCount(usage: JsonObject, detailsKey: string): number | undefined {
  const details = field(usage, detailsKey);
  return isJsonObject(details) ? countField(details, 'cached_tokens') : undefined;
}

/** Chat completions and completions. */
export const openAiPromptUsage: PromptUsageReader = (usage) => ({
  promptTokens: countField(usage, 'prompt_tokens'),
  cachedPromptTokens: detailsCount(usage, 'prompt_tokens_details'),
});

/** Responses. */
export const responsesPromptUsage: PromptUsageReader = (usage) => ({
  promptTokens: countField(usage, 'input_tokens'),
  cachedPromptTokens: detailsCount(usage, 'input_tokens_details'),
});

/** Messages: cache writes are prompt tokens too (priced at the input price here, although Anthropic charges
 *  them more); cache reads are the cached ones. */
export const anthropicPromptUsage: PromptUsageReader = (usage) => {
  const input = countField(usage, 'input_tokens');
  const cacheRead = countField(usage, 'cache_read_input_tokens');
  const cacheWrite = countField(usage, 'cache_creation_input_tokens');
  return {
    promptTokens: input === undefined ? undefined : input + (cacheRead ?? 0) + (cacheWrite ?? 0),
    cachedPromptTokens: cacheRead,
  };
};
