// OpenAI (legacy) completions (`/v1/completions`, `text_completion` objects): content is `choices[].text`.

import type { EventClassifier, EventFacts } from '../../measure/answer-facts.js';
import { type JsonObject, stringField } from '../../shared/json-object.js';
import type { SseEvent } from '../../sse/sse-parser.js';
import { type EventScan, JSON_STRING, named, withScan } from '../event-scan.js';
import {
  type ChoiceText,
  choiceAround,
  classifyOpenAiEvent,
  openAiChunkScan,
} from '../openai-choices/choices-stream.js';

/** Every event JSON.parsed: the reference the scan is tested against. */
export const openAiCompletionsParsingClassifier: EventClassifier = {
  protocol: 'openai-completions',
  classify(event: SseEvent): EventFacts {
    return classifyOpenAiEvent(event, readText);
  },
};

export const openAiCompletionsScan: EventScan = openAiChunkScan(
  choiceAround('text', `${named('text')}(${JSON_STRING})`),
);

/** A chunk of text read by the scan, any other event JSON.parsed. */
export const openAiCompletionsClassifier: EventClassifier = withScan(
  openAiCompletionsParsingClassifier,
  openAiCompletionsScan,
);

function readText(choice: JsonObject): ChoiceText {
  return { answer: stringField(choice, 'text'), reasoning: '' };
}
