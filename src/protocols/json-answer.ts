// The frame every protocol's non-streamed answer reader shares: parse the JSON, take a 200 whose body holds an
// error object instead of an answer for the upstream error it is, and otherwise let the protocol read its own
// usage and finish reason. Tokens are estimated from the text only when the upstream reported no usage.

import { errorJsonText, type JsonAnswerFacts } from '../measure/answer-facts.js';
import { field, isJsonObject, type JsonObject, parseJsonObject, stringField } from '../shared/json-object.js';
import { estimateTokens } from '../shared/token-estimate.js';
import type { UsageReader } from './usage.js';

/** Reads what the answer says into `facts` (which start empty); the answer is known not to be an error. */
export type AnswerFields = (answer: JsonObject, facts: JsonAnswerFacts) => void;

export function jsonAnswerReader(readFields: AnswerFields): (bytes: Buffer) => JsonAnswerFacts {
  return (bytes) => {
    const facts: JsonAnswerFacts = {
      promptTokens: null,
      cachedPromptTokens: null,
      outputTokens: null,
      reasoningTokens: null,
      source: null,
      finishReason: null,
      toolCalls: null,
      responseId: null,
      errorMessage: null,
      notAnswer: null,
    };
    const answer = parseJsonObject(bytes.toString('utf8'));
    if (answer === undefined) {
      facts.notAnswer = bytes.length === 0 ? 'an empty body' : 'a body that is not a JSON object';
      return facts;
    }
    const error = field(answer, 'error');
    if ((error !== undefined && error !== null) || field(answer, 'object') === 'error') {
      const source = isJsonObject(error) ? error : answer;
      facts.errorMessage = stringField(source, 'message') || errorJsonText(error ?? answer, bytes);
      return facts;
    }
    readFields(answer, facts);
    return facts;
  };
}

/** The answer's `usage`, read by the protocol's usage reader (the one its stream classifier reads usage with). */
export function readUsage(answer: JsonObject, facts: JsonAnswerFacts, readUsageOf: UsageReader): void {
  const reported = readUsageOf(field(answer, 'usage'));
  if (reported === undefined) return;
  if ('implausible' in reported) {
    facts.implausibleUsage = reported.implausible;
    return;
  }
  const { promptTokens, cachedPromptTokens, outputTokens, reasoningTokens } = reported.counts;
  facts.promptTokens = promptTokens ?? null;
  facts.cachedPromptTokens = cachedPromptTokens ?? null;
  facts.outputTokens = outputTokens ?? null;
  facts.reasoningTokens = reasoningTokens ?? null;
  if (facts.outputTokens !== null) facts.source = 'usage';
}

/** Notes on `facts` that the answer has no `member` or an empty one (the list of choices, of output, of content). */
export function requireList(
  answer: JsonObject,
  facts: JsonAnswerFacts,
  member: string,
): unknown[] | undefined {
  const list = field(answer, member);
  if (Array.isArray(list) && list.length > 0) return list;
  facts.notAnswer = Array.isArray(list) ? `an empty \`${member}\`` : `no \`${member}\``;
  return undefined;
}

/** Output tokens estimated from the generated text, when the upstream reported none. */
export function estimateFromText(facts: JsonAnswerFacts, text: string): void {
  if (facts.outputTokens !== null || text === '') return;
  facts.outputTokens = estimateTokens(text);
  facts.source = 'estimate';
}
