// What OpenAI chat and completions share besides their stream (choices-stream.ts): their usage reader (below),
// the stream tail of their bodies (usage on request, vLLM's ignore_eos) and the reading of a non-streamed answer
// (`choices`).

import type { JsonAnswerFacts } from '../../measure/answer-facts.js';
import { countField, field, isJsonObject, type JsonObject, stringField } from '../../shared/json-object.js';
import { estimateFromText, readUsage, requireList } from '../json-answer.js';
import type { Body, BodyOptions } from '../protocol.js';
import { detailCount, type UsageReader, usageReader } from '../usage.js';

/** OpenAI's stream tail: the usage chunk on request (on every chunk with continuousUsage), and vLLM's ignore_eos. */
export function openAiStreamFields(options: BodyOptions): Body {
  return {
    stream: true,
    ...(options.includeUsage
      ? {
          stream_options:
            // vLLM honours continuous_usage_stats only beside include_usage.
            options.continuousUsage === true
              ? { include_usage: true, continuous_usage_stats: true }
              : { include_usage: true },
        }
      : {}),
    ...(options.ignoreEos ? { ignore_eos: true } : {}),
  };
}

/** Chat completions and completions: usage, then each choice's finish reason and text (message or text). */
export function readOpenAiAnswer(answer: JsonObject, facts: JsonAnswerFacts): void {
  readUsage(answer, facts, readChoicesUsage);
  const choices = requireList(answer, facts, 'choices');
  if (choices === undefined) return;
  let text = '';
  let toolCalls = 0;
  for (const choice of choices) {
    if (!isJsonObject(choice)) continue;
    const finish = field(choice, 'finish_reason');
    if (typeof finish === 'string' && facts.finishReason === null) facts.finishReason = finish;
    const message = field(choice, 'message');
    text += isJsonObject(message) ? stringField(message, 'content') : stringField(choice, 'text');
    if (!isJsonObject(message)) continue;
    const calls = field(message, 'tool_calls');
    if (Array.isArray(calls)) toolCalls += calls.length;
    if (isJsonObject(field(message, 'function_call'))) toolCalls++;
  }
  facts.toolCalls = toolCalls;
  estimateFromText(facts, text);
}

// ---- The usage reader ----
// OpenAI chat completions' and completions' usage reader, the one both read streamed (the usage chunk, or vLLM's
// running usage on every chunk) and non-streamed answers with: `prompt_tokens` (cached ones included, counted in
// `prompt_tokens_details.cached_tokens`), `completion_tokens` (reasoning included, counted in
// `completion_tokens_details.reasoning_tokens`).

export const readChoicesUsage: UsageReader = usageReader((usage) => ({
  promptTokens: countField(usage, 'prompt_tokens'),
  cachedPromptTokens: detailCount(usage, 'prompt_tokens_details', 'cached_tokens'),
  outputTokens: countField(usage, 'completion_tokens'),
  reasoningTokens: detailCount(usage, 'completion_tokens_details', 'reasoning_tokens'),
}));
