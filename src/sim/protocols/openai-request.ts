// Reads OpenAI chat and completions request bodies the way vLLM's OpenAI server does, and says precisely what is
// wrong when it cannot: 400 for values it rejects, 422 for a body of the wrong shape (the "Unprocessable Entity"
// users meet when a completions body is sent to the chat path, or the other way round).
import { type GenerationRequest, RequestRejection } from './protocol.js';
import {
  asObject,
  conversationPrompt,
  type Json,
  maxTokensField,
  messageTexts,
  optionalModel,
  optionalNumber,
  type Prompt,
  plainPrompt,
  stopStrings,
  temperatureField,
} from './request-fields.js';

function chatPrompt(body: Json): Prompt {
  if (body['messages'] === undefined) {
    const hint = 'prompt' in body ? ': this body has "prompt", which belongs on /v1/completions' : '';
    throw new RequestRejection(422, `field required: messages${hint}`, 'messages');
  }
  return conversationPrompt(messageTexts(body['messages'], 'messages', ['text']));
}

function completionsPrompt(body: Json): Prompt {
  const prompt = body['prompt'];
  if (prompt === undefined) {
    const hint =
      'messages' in body ? ': this body has "messages", which belongs on /v1/chat/completions' : '';
    throw new RequestRejection(422, `field required: prompt${hint}`, 'prompt');
  }
  const text = Array.isArray(prompt) && prompt.length === 1 ? prompt[0] : prompt;
  if (typeof text !== 'string') {
    throw new RequestRejection(
      422,
      'prompt must be a string (the simulator takes one prompt per request)',
      'prompt',
    );
  }
  return plainPrompt(text);
}

export function parseOpenAIRequest(
  protocol: 'openai-chat' | 'openai-completions',
  body: unknown,
): GenerationRequest {
  const b = asObject(body);
  const prompt = protocol === 'openai-chat' ? chatPrompt(b) : completionsPrompt(b);
  const model = optionalModel(b);
  const maxTokens = maxTokensField(b, 'max_completion_tokens') ?? maxTokensField(b, 'max_tokens');
  const n = optionalNumber(b, 'n') ?? 1;
  if (n !== 1) throw new RequestRejection(400, 'n must be 1: the simulator generates one choice', 'n');
  const streamOptions = b['stream_options'];
  const options = typeof streamOptions === 'object' && streamOptions !== null ? (streamOptions as Json) : {};
  const includeUsage = options['include_usage'] === true;
  return {
    protocol,
    model,
    promptText: prompt.text,
    promptTokens: prompt.blocks.tokens,
    blocks: prompt.blocks,
    stream: b['stream'] === true,
    includeUsage,
    // vLLM: include_continuous_usage = include_usage and continuous_usage_stats.
    continuousUsage: includeUsage && options['continuous_usage_stats'] === true,
    maxTokens,
    ignoreEos: b['ignore_eos'] === true,
    stop: stopStrings(b['stop'], 'stop'),
    temperature: temperatureField(b),
  };
}
