// OpenAI chat completions (`/v1/chat/completions`), the body vLLM's benchmark sends as `openai-chat`.
import { jsonAnswerReader } from '../json-answer.js';
import { openAiStreamFields, readOpenAiAnswer } from '../openai-choices/answer.js';
import { BEARER_AUTH, defineProtocol, userContent } from '../protocol.js';
import { openAiChatClassifier } from './stream-classifier.js';

export const openAiChat = defineProtocol({
  name: 'openai-chat',
  endpoint: 'chat/completions',
  family: 'chat',
  auth: BEARER_AUTH,
  usageOnRequest: true,
  hasIgnoreEos: true,
  classifier: openAiChatClassifier,
  readAnswer: jsonAnswerReader(readOpenAiAnswer),
  buildBody: (sample, options) => ({
    messages: [
      ...(sample.systemPrompt === undefined
        ? []
        : [{ role: 'system', content: userContent(sample.systemPrompt, options.chatContent, 'text') }]),
      { role: 'user', content: userContent(sample.prompt, options.chatContent, 'text') },
    ],
    temperature: options.temperature,
    [options.maxTokensField]: sample.outputTokens,
    ...openAiStreamFields(options),
  }),
  streamFields: openAiStreamFields,
  conversationField: 'messages',
});
