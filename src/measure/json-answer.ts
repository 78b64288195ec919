// Reads usage, finish reason and error out of a non-streamed JSON answer: chat completions, completions and
// embeddings (`usage.prompt_tokens`, `choices`), Anthropic Messages (`usage.input_tokens`, `stop_reason`,
// `content`) and OpenAI Responses (`usage.input_tokens`, `status`, `incomplete_details`). A 200 whose body holds
// an error object instead of an answer is an upstream error, not success (stream-outcome.ts's answerOutcome).
import { estimateTokens } from '../shared/token-estimate.js';
import {
  countField,
  field,
  isJsonObject,
  type JsonObject,
  parseJsonObject,
  stringField,
} from './json-object.js';

/** What a non-streamed JSON answer told us. */
export interface JsonAnswerFacts {
  promptTokens: number | null;
  outputTokens: number | null;
  source: 'usage' | 'estimate' | null;
  finishReason: string | null;
  errorMessage: string | null;
}

export function readJsonAnswer(bytes: Buffer): JsonAnswerFacts {
  const facts: JsonAnswerFacts = {
    promptTokens: null,
    outputTokens: null,
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
    facts.promptTokens = countField(usage, 'prompt_tokens') ?? countField(usage, 'input_tokens') ?? null;
    facts.outputTokens = countField(usage, 'completion_tokens') ?? countField(usage, 'output_tokens') ?? null;
    if (facts.outputTokens !== null) facts.source = 'usage';
  }
  facts.finishReason = otherFinishReason(answer);
  const content = field(answer, 'content');
  if (facts.outputTokens === null && Array.isArray(content)) {
    const text = content.map((block) => (isJsonObject(block) ? stringField(block, 'text') : '')).join('');
    if (text !== '') {
      facts.outputTokens = estimateTokens(text);
      facts.source = 'estimate';
    }
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
    if (facts.outputTokens === null && text !== '') {
      facts.outputTokens = estimateTokens(text);
      facts.source = 'estimate';
    }
  }
  return facts;
}

/** Anthropic's `stop_reason`; for a Responses object, why it is incomplete or else its status. */
function otherFinishReason(answer: JsonObject): string | null {
  const stop = stringField(answer, 'stop_reason');
  if (stop !== '') return stop;
  if (field(answer, 'object') !== 'response') return null;
  const details = field(answer, 'incomplete_details');
  return (
    (isJsonObject(details) ? stringField(details, 'reason') : '') || stringField(answer, 'status') || null
  );
}
