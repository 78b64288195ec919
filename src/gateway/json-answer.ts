// Reads usage, finish reason and error out of a non-streamed JSON answer (chat completions, completions,
// embeddings). A 200 whose body holds an error object instead of choices is an upstream error, not success.
import { countField, field, isJsonObject, parseJsonObject, stringField } from '../measure/json-object.js';
import { estimateTokens } from '../shared/token-estimate.js';
import type { JsonAnswerFacts } from './measurement.js';

export function readJsonAnswer(bytes: Buffer): JsonAnswerFacts {
  const facts: JsonAnswerFacts = {
    promptTokens: null,
    completionTokens: null,
    source: null,
    finishReason: null,
    errorMessage: null,
  };
  const answer = parseJsonObject(bytes.toString('utf8'));
  if (answer === undefined) return facts;
  const error = field(answer, 'error');
  if ((error !== undefined && error !== null) || field(answer, 'object') === 'error') {
    const source = isJsonObject(error) ? error : answer;
    facts.errorMessage = stringField(source, 'message') || JSON.stringify(error ?? answer).slice(0, 2000);
    return facts;
  }
  const usage = field(answer, 'usage');
  if (isJsonObject(usage)) {
    facts.promptTokens = countField(usage, 'prompt_tokens') ?? null;
    facts.completionTokens = countField(usage, 'completion_tokens') ?? null;
    if (facts.completionTokens !== null) facts.source = 'usage';
  }
  const choices = field(answer, 'choices');
  if (Array.isArray(choices)) {
    let text = '';
    for (const choice of choices) {
      if (!isJsonObject(choice)) continue;
      const finish = field(choice, 'finish_reason');
      if (typeof finish === 'string' && facts.finishReason === null) facts.finishReason = finish;
      const message = field(choice, 'message');
      text += isJsonObject(message) ? stringField(message, 'content') : stringField(choice, 'text');
    }
    if (facts.completionTokens === null && text !== '') {
      facts.completionTokens = estimateTokens(text);
      facts.source = 'estimate';
    }
  }
  return facts;
}
