// OpenAI chat completions (`/v1/chat/completions`, `chat.completion.chunk` objects).
//
// Content is what the model generated into `choices[].delta`: answer text, reasoning text, a refusal, or tool-call
// text. A delta that carries only `role`, or only empty strings, is not content: counting it would stamp the first
// token before the model produced any (vLLM's own benchmark does, which is one of its known flaws).

import type { EventClassifier, EventFacts } from '../../measure/answer-facts.js';
import { field, isJsonObject, type JsonObject, stringField } from '../../shared/json-object.js';
import type { SseEvent } from '../../sse/sse-parser.js';
import {
  type EventScan,
  ignoredMember,
  JSON_STRING,
  membersAfter,
  membersBefore,
  named,
  namedAnyOf,
  object,
  withScan,
} from '../event-scan.js';
import {
  type ChoiceText,
  choiceAround,
  classifyOpenAiEvent,
  openAiChunkScan,
} from '../openai-choices/choices-stream.js';

/** Every event JSON.parsed: the reference the scan is tested against. */
export const openAiChatParsingClassifier: EventClassifier = {
  protocol: 'openai-chat',
  classify(event: SseEvent): EventFacts {
    return classifyOpenAiEvent(event, readDeltaText);
  },
};

// The delta members readDeltaText reads. A scanned delta has exactly one of the text ones (a string) and none of
// the others: `{"content": "Hi"}`, `{"role": "assistant", "content": ""}`, `{"reasoning_content": "..."}`. The
// first capture is an answer's text, the second a reasoning text's (openAiChunkScan).
const DELTA_READ = ['content', 'reasoning_content', 'reasoning', 'refusal', 'tool_calls', 'function_call'];
const DELTA_TEXT =
  `(?:${namedAnyOf(['content', 'refusal'])}(${JSON_STRING})` +
  `|${namedAnyOf(['reasoning_content', 'reasoning'])}(${JSON_STRING}))`;
const DELTA = object(
  `${membersBefore(ignoredMember(DELTA_READ))}${DELTA_TEXT}${membersAfter(ignoredMember(DELTA_READ))}`,
);

export const openAiChatScan: EventScan = openAiChunkScan(choiceAround('delta', `${named('delta')}${DELTA}`));

/** A content delta read by the scan, any other event JSON.parsed. */
export const openAiChatClassifier: EventClassifier = withScan(openAiChatParsingClassifier, openAiChatScan);

const NO_TEXT: ChoiceText = Object.freeze({ answer: '', reasoning: '' });

function readDeltaText(choice: JsonObject): ChoiceText {
  const delta = field(choice, 'delta');
  if (!isJsonObject(delta)) return NO_TEXT;
  // Servers name reasoning `reasoning_content` (DeepSeek, older vLLM) or `reasoning` (newer vLLM, OpenRouter);
  // some send both with the same text, so only one of them is read.
  const reasoning = stringField(delta, 'reasoning_content') || stringField(delta, 'reasoning');
  let text = stringField(delta, 'content') + stringField(delta, 'refusal');

  // Each delta of a call carries its index; the first also its id and name.
  const toolCalls = field(delta, 'tool_calls');
  const indexes: number[] = [];
  if (Array.isArray(toolCalls)) {
    for (const call of toolCalls) {
      if (!isJsonObject(call)) continue;
      text += functionText(field(call, 'function'));
      const index = field(call, 'index');
      indexes.push(typeof index === 'number' ? index : 0);
    }
  }
  // The deprecated `functions` API streams the same thing as a single `function_call`.
  const functionCall = field(delta, 'function_call');
  text += functionText(functionCall);
  if (isJsonObject(functionCall)) indexes.push(0);
  return indexes.length === 0
    ? { answer: text, reasoning }
    : { answer: text, reasoning, toolCallIndexes: indexes };
}

// A tool call's generated text: its name (in the first delta of the call) and its argument fragments.
function functionText(fn: unknown): string {
  if (!isJsonObject(fn)) return '';
  return stringField(fn, 'name') + stringField(fn, 'arguments');
}
