// Anthropic's Messages API (/v1/messages), streamed and not. A stream opens with lifecycle events
// (message_start, content_block_start, ping) that carry no text: a meter that stamps its first token on them
// reports a fake ~1 ms TTFT, which is exactly what the gateway's tests must show it does not do.
import type { IncomingMessage } from 'node:http';
import { isJsonObject } from '../../shared/json-object.js';
import type {
  AnswerTexts,
  AnswerWire,
  FinishReason,
  GenerationRequest,
  PlannedToolCall,
  SimProtocol,
  TokenUsage,
  ToolChoice,
  ToolSpec,
  WireContext,
} from './protocol.js';
import { NO_AGENT_FIELDS, RequestRejection } from './protocol.js';
import {
  asObject,
  checkedToolChoice,
  contentParts,
  contentText,
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
  stopStrings,
  temperatureField,
  textMessage,
  textPart,
  toolCallPart,
  toolListMessages,
  toolSpec,
} from './request-fields.js';

const ANTHROPIC_BLOCKS =
  'a content block of type text, image, tool_use, tool_result, thinking or redacted_thinking';
const RESULT_BLOCKS = 'a text or image block';

function imageBlock(block: Json): PromptPart[] | undefined {
  const source = block['source'];
  if (!isJsonObject(source)) return undefined;
  return imagePart(source['data'] ?? source['url'] ?? source['file_id']);
}

/** A tool_result's content: text and images, as the tool returned them. */
function resultBlock(block: Json): PromptPart[] | undefined {
  return block['type'] === 'image' ? imageBlock(block) : textPart(block, ['text']);
}

function messageBlock(block: Json, where: string): PromptPart[] | undefined {
  switch (block['type']) {
    case 'text':
      return textPart(block, ['text']);
    case 'image':
      return imageBlock(block);
    case 'tool_use':
      return [toolCallPart(block['name'], block['input'] ?? {}, `${where}.name`)];
    case 'tool_result':
      return contentParts(block['content'], `${where}.content`, resultBlock, RESULT_BLOCKS);
    case 'thinking':
    case 'redacted_thinking':
      // A next turn's prompt leaves earlier reasoning out, as chat templates do (docs/simulator.md).
      return [];
    default:
      return undefined;
  }
}

function anthropicTools(body: Json): { list: unknown[]; tools: ToolSpec[] } {
  const list = optionalList(body, 'tools');
  // Client tools carry an input_schema; server tools (web search, ...) run at the provider and are never called.
  const tools = list.flatMap((tool) => {
    if (!isJsonObject(tool) || !isJsonObject(tool['input_schema'])) return [];
    const spec = toolSpec(tool['name'], tool['input_schema']);
    return spec === undefined ? [] : [spec];
  });
  return { list, tools };
}

function anthropicToolChoice(body: Json, tools: readonly ToolSpec[]): ToolChoice {
  const choice = body['tool_choice'];
  if (!isJsonObject(choice)) return 'auto';
  if (choice['type'] === 'none') return 'none';
  if (choice['type'] === 'any') return 'required';
  if (choice['type'] === 'tool' && typeof choice['name'] === 'string') {
    return checkedToolChoice({ name: choice['name'] }, tools, 'tool_choice');
  }
  return 'auto';
}

/** `thinking` enabled or adaptive: the effort of `output_config` (Claude Code's), else medium. */
function thinkingEffort(body: Json): string | undefined {
  const thinking = body['thinking'];
  if (!isJsonObject(thinking) || (thinking['type'] !== 'enabled' && thinking['type'] !== 'adaptive')) {
    return undefined;
  }
  const config = body['output_config'];
  return (
    (isJsonObject(config) ? effortField(config['effort'], 'output_config.effort') : undefined) ?? 'medium'
  );
}

interface AnthropicConversation {
  readonly prompt: Prompt;
  readonly tools: ToolSpec[];
  readonly toolTurns: number;
}

/** The prompt of a Messages body: tools, system, messages (also what count_tokens counts). */
export function anthropicConversation(b: Json): AnthropicConversation {
  if (b['messages'] === undefined) {
    throw new RequestRejection(400, 'messages: Field required', 'messages');
  }
  const system = b['system'] === undefined ? [] : [textMessage(contentText(b['system'], 'system', ['text']))];
  let toolTurns = 0;
  const messages = messageList(b['messages'], 'messages').map((m, i): PromptMessage => {
    const where = `messages[${i}].content`;
    const parts = contentParts(m['content'], where, (block) => messageBlock(block, where), ANTHROPIC_BLOCKS);
    if (m['role'] === 'assistant' && parts.some((part) => part.kind === 'tool-call')) toolTurns++;
    return parts;
  });
  const { list, tools } = anthropicTools(b);
  const prompt = conversationPrompt([...toolListMessages(list), ...system, ...messages]);
  return { prompt, tools, toolTurns };
}

function parse(body: unknown): GenerationRequest {
  const b = asObject(body);
  const { prompt, tools, toolTurns } = anthropicConversation(b);
  const maxTokens = maxTokensField(b, 'max_tokens');
  if (maxTokens === undefined) throw new RequestRejection(400, 'max_tokens: Field required', 'max_tokens');
  const thinking = b['thinking'];
  const budget = isJsonObject(thinking) ? optionalNumber(thinking, 'budget_tokens') : undefined;
  return {
    ...NO_AGENT_FIELDS,
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
    tools,
    toolChoice: anthropicToolChoice(b, tools),
    toolTurns,
    reasoningEffort: thinkingEffort(b),
    reasoningBudget: budget,
  };
}

function stopReason(finish: FinishReason, request: GenerationRequest): string {
  if (finish === 'length') return 'max_tokens';
  if (finish === 'tool_calls') return 'tool_use';
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

function toolUseId(call: PlannedToolCall): string {
  return `toolu_${call.idSuffix}`;
}

function deltaHead(index: number, type: string, field: string): string {
  return `event: content_block_delta\ndata: {"type":"content_block_delta","index":${index},"delta":{"type":"${type}","${field}":`;
}

class AnthropicWire implements AnswerWire {
  /** The block being written (its index is `index`): thinking first in reasoning mode, then text or tool_use. */
  private open: 'thinking' | 'text' | 'tool' | 'none';
  private index = 0;
  private deltaHead = deltaHead(0, 'text_delta', 'text');

  constructor(private readonly context: WireContext) {
    this.open = context.reasoning ? 'thinking' : context.toolCall === undefined ? 'text' : 'none';
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
    let block = '';
    if (this.open === 'thinking') {
      block = sse('content_block_start', {
        index: 0,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      });
    } else if (this.open === 'text') {
      block = sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    }
    // A tool_use block opens with the call's first piece, when the model has chosen the tool.
    return sse('message_start', { message }) + block + sse('ping', {});
  }

  beforeFirstContent(): string {
    return '';
  }

  reasoning(text: string): string {
    return `${deltaHead(0, 'thinking_delta', 'thinking')}${JSON.stringify(text)}}}\n\n`;
  }

  /** The thinking block ends with its signature; the next block gets index 1. */
  private endThinking(): string {
    this.open = 'none';
    this.index = 1;
    return (
      sse('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: SIGNATURE } }) +
      sse('content_block_stop', { index: 0 })
    );
  }

  content(text: string): string {
    let opening = '';
    if (this.open === 'thinking') {
      opening =
        this.endThinking() +
        sse('content_block_start', { index: this.index, content_block: { type: 'text', text: '' } });
      this.open = 'text';
      this.deltaHead = deltaHead(this.index, 'text_delta', 'text');
    }
    return `${opening}${this.deltaHead}${JSON.stringify(text)}}}\n\n`;
  }

  toolArguments(text: string): string {
    let opening = '';
    if (this.open !== 'tool') {
      if (this.open === 'thinking') opening = this.endThinking();
      const call = this.context.toolCall as PlannedToolCall;
      opening += sse('content_block_start', {
        index: this.index,
        content_block: { type: 'tool_use', id: toolUseId(call), name: call.name, input: {} },
      });
      this.open = 'tool';
      this.deltaHead = deltaHead(this.index, 'input_json_delta', 'partial_json');
    }
    return `${opening}${this.deltaHead}${JSON.stringify(text)}}}\n\n`;
  }

  closing(finish: FinishReason, usage: TokenUsage): string {
    // An answer cut short inside its reasoning closes the thinking block alone.
    const ending =
      this.open === 'thinking' ? this.endThinking() : sse('content_block_stop', { index: this.index });
    return (
      ending +
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
    const { id, model, request, toolCall } = this.context;
    const thinking = this.context.reasoning
      ? [{ type: 'thinking', thinking: reasoning, signature: SIGNATURE }]
      : [];
    const answer =
      finish === 'tool_calls' && toolCall !== undefined
        ? {
            type: 'tool_use',
            id: toolUseId(toolCall),
            name: toolCall.name,
            input: JSON.parse(toolCall.arguments) as unknown,
          }
        : { type: 'text', text };
    return {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [...thinking, answer],
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
