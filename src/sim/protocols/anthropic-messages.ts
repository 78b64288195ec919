// Anthropic's Messages API (/v1/messages), streamed and not. A stream opens with lifecycle events
// (message_start, content_block_start, ping) that carry no text: a meter that stamps its first token on them
// reports a fake ~1 ms TTFT, which is exactly what the gateway's tests must show it does not do.
import type { IncomingMessage } from 'node:http';
import type {
  AnswerWire,
  FinishReason,
  GenerationRequest,
  SimProtocol,
  TokenUsage,
  WireContext,
} from './protocol.js';
import { RequestRejection } from './protocol.js';
import {
  asObject,
  contentText,
  conversationPrompt,
  maxTokensField,
  messageTexts,
  optionalModel,
  stopStrings,
  temperatureField,
} from './request-fields.js';

function parse(body: unknown): GenerationRequest {
  const b = asObject(body);
  if (b['messages'] === undefined) {
    throw new RequestRejection(400, 'messages: Field required', 'messages');
  }
  const maxTokens = maxTokensField(b, 'max_tokens');
  if (maxTokens === undefined) throw new RequestRejection(400, 'max_tokens: Field required', 'max_tokens');
  const system = b['system'] === undefined ? [] : [contentText(b['system'], 'system', ['text'])];
  const prompt = conversationPrompt([...system, ...messageTexts(b['messages'], 'messages', ['text'])]);
  return {
    protocol: 'anthropic-messages',
    model: optionalModel(b),
    promptText: prompt.text,
    promptTokens: prompt.tokens,
    stream: b['stream'] === true,
    includeUsage: true,
    maxTokens,
    ignoreEos: false,
    stop: stopStrings(b['stop_sequences'], 'stop_sequences'),
    temperature: temperatureField(b),
  };
}

function stopReason(finish: FinishReason, request: GenerationRequest): string {
  if (finish === 'length') return 'max_tokens';
  return request.stop.length > 0 ? 'stop_sequence' : 'end_turn';
}

function sse(type: string, data: object): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

class AnthropicWire implements AnswerWire {
  private readonly deltaHead =
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":';

  constructor(private readonly context: WireContext) {}

  opening(): string {
    const { id, model, request } = this.context;
    const message = {
      id,
      type: 'message',
      role: 'assistant',
      content: [],
      model,
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: request.promptTokens, output_tokens: 1 },
    };
    return (
      sse('message_start', { message }) +
      sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
      sse('ping', {})
    );
  }

  beforeFirstContent(): string {
    return '';
  }

  content(text: string): string {
    return `${this.deltaHead}${JSON.stringify(text)}}}\n\n`;
  }

  closing(finish: FinishReason, usage: TokenUsage): string {
    return (
      sse('content_block_stop', { index: 0 }) +
      sse('message_delta', {
        delta: { stop_reason: stopReason(finish, this.context.request), stop_sequence: null },
        usage: { output_tokens: usage.completionTokens },
      }) +
      sse('message_stop', {})
    );
  }

  streamError(message: string): string {
    return sse('error', { error: { type: 'overloaded_error', message } });
  }

  body(text: string, finish: FinishReason, usage: TokenUsage): object {
    const { id, model, request } = this.context;
    return {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text }],
      stop_reason: stopReason(finish, request),
      stop_sequence: null,
      usage: { input_tokens: usage.promptTokens, output_tokens: usage.completionTokens },
    };
  }
}

function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status === 529) return 'overloaded_error';
  return status >= 500 ? 'api_error' : 'invalid_request_error';
}

export const anthropicMessages: SimProtocol = {
  name: 'anthropic-messages',
  path: '/v1/messages',
  idPrefix: 'msg',
  parse,
  wire: (context) => new AnthropicWire(context),
  error: (status, message) => ({ type: 'error', error: { type: errorType(status), message } }),
  // Anthropic clients send x-api-key; OpenAI-style bearer tokens are accepted too, as Anthropic-compatible
  // gateways do.
  hasKey: (req: IncomingMessage, key: string) =>
    req.headers['x-api-key'] === key || req.headers.authorization === `Bearer ${key}`,
};
