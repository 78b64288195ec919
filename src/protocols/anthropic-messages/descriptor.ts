// Anthropic Messages (`/v1/messages`): the key in `x-api-key` with a required `anthropic-version`, for the whole
// `messages` family (`messages/count_tokens` too). Its stream always carries usage (message_start and
// message_delta), and it has no ignore_eos.
import { isJsonObject, stringField } from '../../shared/json-object.js';
import { estimateFromText, jsonAnswerReader, readUsage, requireList } from '../json-answer.js';
import { defineProtocol, streamOnly, userContent } from '../protocol.js';
import { anthropicMessagesClassifier, readMessagesUsage } from './stream-classifier.js';

/** 2023-06-01 is the version Anthropic's SDKs and Claude Code send. */
const ANTHROPIC_VERSION = '2023-06-01';

export const anthropicMessages = defineProtocol({
  name: 'anthropic-messages',
  endpoint: 'messages',
  family: 'messages',
  auth: Object.freeze({
    keyHeader: 'x-api-key',
    versionHeader: Object.freeze({ name: 'anthropic-version', value: ANTHROPIC_VERSION }),
  }),
  usageOnRequest: false,
  hasIgnoreEos: false,
  classifier: anthropicMessagesClassifier,
  // Its usage, `stop_reason`, and the text of the `content` blocks.
  readAnswer: jsonAnswerReader((answer, facts) => {
    readUsage(answer, facts, readMessagesUsage);
    facts.finishReason = stringField(answer, 'stop_reason') || null;
    const content = requireList(answer, facts, 'content');
    if (content !== undefined) {
      const text = content.map((block) => (isJsonObject(block) ? stringField(block, 'text') : '')).join('');
      estimateFromText(facts, text);
      facts.toolCalls = content.filter((block) => isJsonObject(block) && block['type'] === 'tool_use').length;
    }
  }),
  // max_tokens is required by the Messages API.
  buildBody: (sample, options) => ({
    max_tokens: sample.outputTokens,
    ...(sample.systemPrompt === undefined ? {} : { system: sample.systemPrompt }),
    messages: [{ role: 'user', content: userContent(sample.prompt, options.chatContent, 'text') }],
    temperature: options.temperature,
    stream: true,
  }),
  streamFields: streamOnly,
  conversationField: 'messages',
});
