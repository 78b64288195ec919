// OpenAI (legacy) completions (`/v1/completions`, `text_completion` objects): content is `choices[].text`.

import { type JsonObject, stringField } from '../shared/json-object.js';
import type { SseEvent } from '../sse/sse-parser.js';
import type { EventClassifier, EventFacts } from './event-classifier.js';
import { classifyOpenAiEvent } from './openai-stream.js';

export const openAiCompletionsClassifier: EventClassifier = {
  protocol: 'openai-completions',
  classify(event: SseEvent): EventFacts {
    return classifyOpenAiEvent(event, readText);
  },
};

function readText(choice: JsonObject): string {
  return stringField(choice, 'text');
}
