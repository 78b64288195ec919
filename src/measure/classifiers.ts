// The protocols the meter understands, by the name used in configuration and records.

import type { EventClassifier } from './event-classifier.js';
import { openAiChatClassifier } from './openai-chat-classifier.js';
import { openAiCompletionsClassifier } from './openai-completions-classifier.js';

export const CLASSIFIERS: ReadonlyMap<string, EventClassifier> = new Map(
  [openAiChatClassifier, openAiCompletionsClassifier].map((classifier) => [classifier.protocol, classifier]),
);

/** The classifier for `protocol`, or undefined when none is registered under that name. */
export function classifierFor(protocol: string): EventClassifier | undefined {
  return CLASSIFIERS.get(protocol);
}
