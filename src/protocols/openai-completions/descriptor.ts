// OpenAI (legacy) completions (`/v1/completions`), the body vLLM's benchmark sends as `openai` and `vllm`: with its
// `repetition_penalty: 1.0` and `logprobs: null` (vLLM's client always writes both; --repetition-penalty and
// --logprobs replace them through the sampling fields merged after the body).
import { jsonAnswerReader } from '../json-answer.js';
import { openAiStreamFields, readOpenAiAnswer } from '../openai-choices/answer.js';
import { BEARER_AUTH, defineProtocol } from '../protocol.js';
import { openAiCompletionsClassifier } from './stream-classifier.js';

export const openAiCompletions = defineProtocol({
  name: 'openai-completions',
  endpoint: 'completions',
  family: 'completions',
  auth: BEARER_AUTH,
  usageOnRequest: true,
  hasIgnoreEos: true,
  classifier: openAiCompletionsClassifier,
  readAnswer: jsonAnswerReader(readOpenAiAnswer),
  buildBody: (sample, options) => ({
    // No system role here: the shared system prompt is the prompt's start, a blank line before the user's text.
    prompt: sample.systemPrompt === undefined ? sample.prompt : `${sample.systemPrompt}\n\n${sample.prompt}`,
    repetition_penalty: 1.0,
    [options.maxTokensField]: sample.outputTokens,
    logprobs: null,
    temperature: options.temperature,
    ...openAiStreamFields(options),
  }),
  streamFields: openAiStreamFields,
  conversationField: null,
});
