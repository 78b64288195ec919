// What OpenAI chat completions and completions streams share: `data: [DONE]`, the usage-only chunk
// (`choices: []` plus `usage`, sent when `stream_options.include_usage` is set, read by answer.ts's reader), `finish_reason`,
// and errors sent inside an HTTP 200 stream. Each protocol's stream classifier supplies only how to read generated
// text out of one choice.

import {
  capErrorMessage,
  DONE_FACTS,
  type EventFacts,
  errorJsonText,
  type MutableFacts,
  UNPARSEABLE_FACTS,
} from '../../measure/answer-facts.js';
import {
  field,
  isJsonObject,
  type JsonObject,
  parseJsonObject,
  stringField,
} from '../../shared/json-object.js';
import type { SseEvent } from '../../sse/sse-parser.js';
import {
  arrayOfOne,
  contentFacts,
  type EventScan,
  ignoredMember,
  membersAfter,
  membersBefore,
  named,
  object,
  stringOtherThan,
  stringValue,
  whole,
} from '../event-scan.js';
import { addUsageFacts } from '../usage.js';
import { readChoicesUsage } from './answer.js';

/** The generated text of one element of `choices`: its answer (content, refusal, tool calls) and its reasoning. */
export interface ChoiceText {
  readonly answer: string;
  readonly reasoning: string;
  /** The tool calls the choice's delta continues, by their index (EventFacts.toolCallIndexes). */
  readonly toolCallIndexes?: readonly number[];
}

/** Reads the generated text out of one element of `choices` ('' for each part it does not carry). */
export type ChoiceTextReader = (choice: JsonObject) => ChoiceText;

/**
 * The scan (event-scan.ts) of a chunk with one choice matched by `choice`, whose captures are the JSON string
 * literal of its generated text: the first an answer's, the second (when `choice` has one) a reasoning text's.
 * Around it, the chunk's members classifyOpenAiEvent reads may only say nothing: `"error": null`,
 * `"usage": null`, an `object` that is not "error".
 */
export function openAiChunkScan(choice: string): EventScan {
  const ignored = `(?:${ignoredMember(['choices', 'error', 'object', 'usage'])}|${named('error')}null|${named('usage')}null|${named('object')}${stringOtherThan(['error'])})`;
  const pattern = whole(
    object(
      `${membersBefore(ignored)}${named('choices')}${arrayOfOne(object(choice))}${membersAfter(ignored)}`,
    ),
  );
  return (event) => {
    if (event.event === 'error') return undefined;
    const match = pattern.exec(event.data);
    if (match === null) return undefined;
    const answer = match[1];
    return answer !== undefined
      ? contentFacts(stringValue(answer))
      : contentFacts(stringValue(match[2] as string), true);
  };
}

/**
 * The members of a choice around the one that holds its text (`text`, matched by `textMember`): none that
 * classifyOpenAiEvent or the protocol's reader reads, but a null `finish_reason`.
 */
export function choiceAround(textKey: string, textMember: string): string {
  const ignored = `(?:${ignoredMember([textKey, 'finish_reason'])}|${named('finish_reason')}null)`;
  return `${membersBefore(ignored)}${textMember}${membersAfter(ignored)}`;
}

export function classifyOpenAiEvent(event: SseEvent, readChoiceText: ChoiceTextReader): EventFacts {
  if (event.data === '[DONE]') return DONE_FACTS;
  const chunk = parseJsonObject(event.data);
  if (event.event === 'error') return { errorMessage: errorMessageOf(chunk, event.data) };
  if (chunk === undefined) return UNPARSEABLE_FACTS;
  // An error replaces the choices: {"error": {"message": ...}}. Older vLLM versions sent the error object
  // itself: {"object": "error", "message": ..., "code": ...}.
  const error = field(chunk, 'error');
  if ((error !== undefined && error !== null) || field(chunk, 'object') === 'error') {
    return { errorMessage: errorMessageOf(chunk, event.data) };
  }

  const facts: MutableFacts = {};
  const choices = field(chunk, 'choices');
  if (Array.isArray(choices)) {
    let answer = '';
    let reasoning = '';
    for (const choice of choices) {
      if (!isJsonObject(choice)) continue;
      const text = readChoiceText(choice);
      answer += text.answer;
      reasoning += text.reasoning;
      if (text.toolCallIndexes !== undefined) facts.toolCallIndexes = text.toolCallIndexes;
      const finish = field(choice, 'finish_reason');
      if (typeof finish === 'string' && facts.finishReason === undefined) facts.finishReason = finish;
    }
    // Answer first: with both in one chunk, the answer has started.
    const text = answer + reasoning;
    if (text !== '') facts.contentText = text;
    if (answer === '' && reasoning !== '') facts.reasoning = true;
  }

  // OpenAI sends `"usage": null` on every chunk once include_usage is set; vLLM's continuous_usage_stats puts a
  // running usage on every chunk. Either way the last usage seen wins.
  const reported = readChoicesUsage(field(chunk, 'usage'));
  if (reported === undefined) return facts;
  // A usage-only chunk is one whatever its counts: the gateway removes it when it asked for usage itself.
  if (Array.isArray(choices) && choices.length === 0) facts.usageOnly = true;
  return addUsageFacts(facts, reported);
}

function errorMessageOf(chunk: JsonObject | undefined, rawData: string): string {
  const nested = chunk === undefined ? undefined : field(chunk, 'error');
  const error = nested === undefined || nested === null ? chunk : nested;
  let message: string;
  if (typeof error === 'string') message = error;
  else if (isJsonObject(error) && stringField(error, 'message') !== '')
    message = stringField(error, 'message');
  else if (error !== undefined) message = errorJsonText(error, rawData);
  else message = rawData;
  return capErrorMessage(message);
}
