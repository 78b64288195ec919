// OpenAI Responses (`/v1/responses`): its stream always carries usage (response.completed), and it has no
// ignore_eos.

import { field, isJsonObject, stringField } from '../../shared/json-object.js';
import { jsonAnswerReader, readUsage, requireList } from '../json-answer.js';
import { BEARER_AUTH, defineProtocol, streamOnly, userContent } from '../protocol.js';
import {
  CLIENT_TOOL_CALL_ITEMS,
  openAiResponsesClassifier,
  readResponsesUsage,
} from './stream-classifier.js';

export const openAiResponses = defineProtocol({
  name: 'openai-responses',
  endpoint: 'responses',
  family: 'responses',
  auth: BEARER_AUTH,
  usageOnRequest: false,
  hasIgnoreEos: false,
  classifier: openAiResponsesClassifier,
  // Its usage; for a response object, why it is incomplete or else its status.
  readAnswer: jsonAnswerReader((answer, facts) => {
    readUsage(answer, facts, readResponsesUsage);
    if (field(answer, 'object') !== 'response') return;
    facts.responseId = stringField(answer, 'id') || null;
    // A background response is answered queued, its output still to come: not judged here.
    const status = stringField(answer, 'status');
    const output =
      status === 'queued' || status === 'in_progress'
        ? field(answer, 'output')
        : requireList(answer, facts, 'output');
    if (Array.isArray(output)) {
      facts.toolCalls = output.filter(
        (item) => isJsonObject(item) && CLIENT_TOOL_CALL_ITEMS.has(stringField(item, 'type')),
      ).length;
    }
    const details = field(answer, 'incomplete_details');
    facts.finishReason =
      (isJsonObject(details) ? stringField(details, 'reason') : '') || stringField(answer, 'status') || null;
  }),
  // `input` as a plain string is a single user message.
  buildBody: (sample, options) => ({
    ...(sample.systemPrompt === undefined ? {} : { instructions: sample.systemPrompt }),
    input:
      options.chatContent === 'parts'
        ? [{ role: 'user', content: userContent(sample.prompt, 'parts', 'input_text') }]
        : sample.prompt,
    temperature: options.temperature,
    max_output_tokens: sample.outputTokens,
    stream: true,
  }),
  streamFields: streamOnly,
  conversationField: 'input',
});
