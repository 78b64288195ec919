// Anthropic's Messages API (/v1/messages), streamed and not. A stream opens with lifecycle events
// (message_start, content_block_start, ping) that carry no text: a meter that stamps its first token on them
// reports a fake ~1 ms TTFT, which is exactly what the gateway's tests must show it does not do.
import type { IncomingMessage } from 'node:http';
import type {
  AnswerTexts,
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
    promptTokens: prompt.blocks.tokens,
    blocks: prompt.blocks,
    stream: b['stream'] === true,
    includeUsage: true,
    continuousUsage: false,
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

/** Anthropic's input usage: `input_tokens` excludes cache reads, which are reported beside it. */
function inputUsage(usage: TokenUsage): object {
  return {
    input_tokens: usage.promptTokens - usage.cachedTokens,
    ...(usage.reportsCache
      ? { cache_creation_input_tokens: 0, cache_read_input_tokens: usage.cachedTokens }
      : {}),
  };
}

/** Thinking blocks end with a signature; the simulator's is opaque and fixed, as a client must not read it. */
const SIGNATURE = 'c2ltdWxhdGVkLXRoaW5raW5nLXNpZ25hdHVyZQ';

class AnthropicWire implements AnswerWire {
  /** The block being written: 0 is the thinking block in reasoning mode, else the text block. */
  private index = 0;
  private thinking: boolean;
  private deltaHead = AnthropicWire.deltaHead(0, 'text_delta', 'text');

  constructor(private readonly context: WireContext) {
    this.thinking = context.reasoning;
  }

  private static deltaHead(index: number, type: string, field: string): string {
    return `event: content_block_delta\ndata: {"type":"content_block_delta","index":${index},"delta":{"type":"${type}","${field}":`;
  }

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
    const block = this.thinking
      ? { type: 'thinking', thinking: '', signature: '' }
      : { type: 'text', text: '' };
    return (
      sse('message_start', { message }) +
      sse('content_block_start', { index: 0, content_block: block }) +
      sse('ping', {})
    );
  }

  beforeFirstContent(): string {
    return '';
  }

  reasoning(text: string): string {
    return `${AnthropicWire.deltaHead(0, 'thinking_delta', 'thinking')}${JSON.stringify(text)}}}\n\n`;
  }

  /** The thinking block ends (with its signature) and the text block opens. */
  private endThinking(): string {
    this.thinking = false;
    this.index = 1;
    this.deltaHead = AnthropicWire.deltaHead(1, 'text_delta', 'text');
    return (
      sse('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: SIGNATURE } }) +
      sse('content_block_stop', { index: 0 }) +
      sse('content_block_start', { index: 1, content_block: { type: 'text', text: '' } })
    );
  }

  content(text: string): string {
    const opening = this.thinking ? this.endThinking() : '';
    return `${opening}${this.deltaHead}${JSON.stringify(text)}}}\n\n`;
  }

  closing(finish: FinishReason, usage: TokenUsage): string {
    // An answer cut short inside its reasoning closes the thinking block alone.
    const signature = this.thinking
      ? sse('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: SIGNATURE } })
      : '';
    return (
      signature +
      sse('content_block_stop', { index: this.index }) +
      sse('message_delta', {
        delta: { stop_reason: stopReason(finish, this.context.request), stop_sequence: null },
        // The input side is known only once the prefix cache was looked up, after message_start went out.
        usage: { ...(usage.reportsCache ? inputUsage(usage) : {}), output_tokens: usage.completionTokens },
      }) +
      sse('message_stop', {})
    );
  }

  streamError(message: string): string {
    return sse('error', { error: { type: 'overloaded_error', message } });
  }

  body({ reasoning, text }: AnswerTexts, finish: FinishReason, usage: TokenUsage): object {
    const { id, model, request } = this.context;
    const thinking = this.context.reasoning
      ? [{ type: 'thinking', thinking: reasoning, signature: SIGNATURE }]
      : [];
    return {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [...thinking, { type: 'text', text }],
      stop_reason: stopReason(finish, request),
      stop_sequence: null,
      usage: { ...inputUsage(usage), output_tokens: usage.completionTokens },
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
