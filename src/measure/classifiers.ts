// The protocols the meter understands, by the name used in configuration and records.

import { anthropicMessagesClassifier } from './anthropic-messages-classifier.js';
import type { EventClassifier } from './event-classifier.js';
import { openAiChatClassifier } from './openai-chat-classifier.js';
import { openAiCompletionsClassifier } from './openai-completions-classifier.js';
import { openAiResponsesClassifier } from './openai-responses-classifier.js';

export const CLASSIFIERS: ReadonlyMap<string, EventClassifier> = new Map(
  [
    openAiChatClassifier,
    openAiCompletionsClassifier,
    anthropicMessagesClassifier,
    openAiResponsesClassifier,
  ].map((classifier) => [classifier.protocol, classifier]),
);

/** The classifier for `protocol`, or undefined when none is registered under that name. */
export function classifierFor(protocol: string): EventClassifier | undefined {
  return CLASSIFIERS.get(protocol);
}
