// OpenAI chat completions and completions, as vLLM serves them: the protocol, then its request bodies read the
// way vLLM reads them.
import type { IncomingMessage } from 'node:http';
import { isJsonObject } from '../../shared/json-object.js';
import { openAIError } from '../../shared/openai-error.js';
import { OpenAIWire } from './openai-wire.js';
import {
  bearerKey,
  type GenerationRequest,
  NO_AGENT_FIELDS,
  RequestRejection,
  type SimProtocol,
  type ToolSpec,
} from './protocol.js';
import {
  asObject,
  checkedToolChoice,
  contentParts,
  conversationPrompt,
  effortField,
  imagePart,
  type Json,
  maxTokensField,
  messageList,
  optionalList,
  optionalModel,
  optionalNumber,
  type Prompt,
  type PromptMessage,
  type PromptPart,
  plainPrompt,
  stopStrings,
  temperatureField,
  textPart,
  toolCallPart,
  toolChoiceWord,
  toolListMessages,
  toolSpec,
} from './request-fields.js';

function errorType(status: number): string {
  if (status === 429) return 'rate_limit_error';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

function openAIProtocol(
  name: 'openai-chat' | 'openai-completions',
  path: string,
  idPrefix: string,
): SimProtocol {
  return {
    name,
    path,
    idPrefix,
    parse: (body) => parseOpenAIRequest(name, body),
    wire: (context) => new OpenAIWire(context),
    error: (status, message, code, param = null) => openAIError(message, errorType(status), code, param),
    hasKey: (req: IncomingMessage, key: string) => bearerKey(req, key),
  };
}

export const openAIChat = openAIProtocol('openai-chat', '/v1/chat/completions', 'chatcmpl');
export const openAICompletions = openAIProtocol('openai-completions', '/v1/completions', 'cmpl');

// Reads OpenAI chat and completions request bodies the way vLLM's OpenAI server does, and says precisely what is
// wrong when it cannot: 400 for values it rejects, 422 for a body of the wrong shape (the "Unprocessable Entity"
// users meet when a completions body is sent to the chat path, or the other way round).
const CHAT_PARTS =
  'a text part {"type": "text", "text": "..."} or an image {"type": "image_url", "image_url": {"url": "..."}}';

function chatPart(part: Json): PromptPart[] | undefined {
  if (part['type'] === 'image_url') {
    const image = part['image_url'];
    return imagePart(isJsonObject(image) ? image['url'] : image);
  }
  if (part['type'] === 'refusal' && typeof part['refusal'] === 'string') {
    return [{ kind: 'text', text: part['refusal'] }];
  }
  return textPart(part, ['text']);
}

/** An assistant message's tool calls (and the deprecated single `function_call`), as prompt parts. */
function chatToolCalls(message: Json, where: string): PromptPart[] {
  const calls = Array.isArray(message['tool_calls']) ? (message['tool_calls'] as unknown[]) : [];
  const parts = calls.map((call, i) => {
    const fn = isJsonObject(call) ? call['function'] : undefined;
    const f = isJsonObject(fn) ? fn : {};
    return toolCallPart(f['name'], f['arguments'], `${where}.tool_calls[${i}].function.name`);
  });
  const legacy = message['function_call'];
  if (isJsonObject(legacy))
    parts.push(toolCallPart(legacy['name'], legacy['arguments'], `${where}.function_call`));
  return parts;
}

interface ChatConversation {
  readonly prompt: Prompt;
  readonly tools: readonly ToolSpec[];
  readonly toolTurns: number;
}

function chatConversation(body: Json): ChatConversation {
  if (body['messages'] === undefined) {
    const hint = 'prompt' in body ? ': this body has "prompt", which belongs on /v1/completions' : '';
    throw new RequestRejection(422, `field required: messages${hint}`, 'messages');
  }
  const messages = messageList(body['messages'], 'messages');
  let toolTurns = 0;
  const rendered: PromptMessage[] = messages.map((m, i) => {
    const where = `messages[${i}]`;
    const calls = m['role'] === 'assistant' ? chatToolCalls(m, where) : [];
    if (calls.length > 0) toolTurns++;
    return [...contentParts(m['content'], `${where}.content`, chatPart, CHAT_PARTS), ...calls];
  });
  const toolList = optionalList(body, 'tools');
  const tools = toolList.flatMap((tool) => {
    const fn = isJsonObject(tool) && tool['type'] === 'function' ? tool['function'] : undefined;
    const spec = isJsonObject(fn) ? toolSpec(fn['name'], fn['parameters']) : undefined;
    return spec === undefined ? [] : [spec];
  });
  return { prompt: conversationPrompt([...toolListMessages(toolList), ...rendered]), tools, toolTurns };
}

function chatToolChoice(body: Json, tools: readonly ToolSpec[]) {
  const value = body['tool_choice'];
  const word = toolChoiceWord(value);
  if (word !== undefined) return word;
  const fn = isJsonObject(value) ? value['function'] : undefined;
  const named = isJsonObject(fn) && typeof fn['name'] === 'string' ? { name: fn['name'] } : 'auto';
  return checkedToolChoice(named, tools, 'tool_choice');
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
  const chat = protocol === 'openai-chat' ? chatConversation(b) : undefined;
  const prompt = chat?.prompt ?? completionsPrompt(b);
  const model = optionalModel(b);
  const maxTokens = maxTokensField(b, 'max_completion_tokens') ?? maxTokensField(b, 'max_tokens');
  const n = optionalNumber(b, 'n') ?? 1;
  if (n !== 1) throw new RequestRejection(400, 'n must be 1: the simulator generates one choice', 'n');
  const streamOptions = b['stream_options'];
  const options = typeof streamOptions === 'object' && streamOptions !== null ? (streamOptions as Json) : {};
  const includeUsage = options['include_usage'] === true;
  const tools = chat?.tools ?? [];
  return {
    ...NO_AGENT_FIELDS,
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
    samplingSeed: optionalNumber(b, 'seed'),
    ...(chat === undefined
      ? {}
      : {
          tools,
          toolChoice: chatToolChoice(b, tools),
          toolTurns: chat.toolTurns,
          reasoningEffort: effortField(b['reasoning_effort'], 'reasoning_effort'),
        }),
  };
}
