// OpenAI's Responses API (/v1/responses), streamed and not. Like Anthropic's, its stream opens with lifecycle
// events (response.created, response.in_progress, output_item.added, content_part.added) that carry no text.
import { isJsonObject } from '../../shared/json-object.js';
import { openAIError } from '../../shared/openai-error.js';
import { chatToolCallId } from './openai-wire.js';
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
import { bearerKey, NO_AGENT_FIELDS, RequestRejection } from './protocol.js';
import {
  asObject,
  checkedToolChoice,
  contentParts,
  conversationPrompt,
  effortField,
  imagePart,
  type Json,
  maxTokensField,
  optionalList,
  optionalModel,
  type PromptMessage,
  type PromptPart,
  temperatureField,
  textMessage,
  textPart,
  toolCallPart,
  toolChoiceWord,
  toolListMessages,
  toolSpec,
} from './request-fields.js';

const RESPONSES_PARTS =
  'a text part {"type": "input_text", "text": "..."} or an image {"type": "input_image", "image_url": "..."}';
const ITEM_TYPES =
  'message, function_call, function_call_output, custom_tool_call, custom_tool_call_output or reasoning';
const CALL_ITEMS: ReadonlySet<unknown> = new Set(['function_call', 'custom_tool_call']);
/** Stands for reasoning.encrypted_content: opaque and fixed, as a client must not read it. */
const ENCRYPTED_REASONING = 'c2ltdWxhdGVkLWVuY3J5cHRlZC1yZWFzb25pbmc';

function responsesPart(part: Json): PromptPart[] | undefined {
  if (part['type'] === 'input_image') return imagePart(part['image_url'] ?? part['file_id']);
  if (part['type'] === 'refusal' && typeof part['refusal'] === 'string') {
    return [{ kind: 'text', text: part['refusal'] }];
  }
  return textPart(part, ['input_text', 'text', 'output_text']);
}

/** One input item as a prompt message; null for a reasoning item, which a next turn's prompt leaves out. */
function inputItem(item: unknown, i: number): PromptMessage | null {
  const where = `input[${i}]`;
  if (!isJsonObject(item)) throw new RequestRejection(422, `${where} must be an object`, 'input');
  const type = item['type'] ?? (typeof item['role'] === 'string' ? 'message' : undefined);
  switch (type) {
    case 'message':
      return contentParts(item['content'], `${where}.content`, responsesPart, RESPONSES_PARTS);
    case 'function_call':
    case 'custom_tool_call':
      return [toolCallPart(item['name'], item['arguments'] ?? item['input'], `${where}.name`)];
    case 'function_call_output':
    case 'custom_tool_call_output':
      return contentParts(item['output'], `${where}.output`, responsesPart, RESPONSES_PARTS);
    case 'reasoning':
      return null;
    default:
      throw new RequestRejection(
        422,
        `${where} has type ${JSON.stringify(type)}; the simulator takes ${ITEM_TYPES} items`,
        'input',
      );
  }
}

/** Tool-calling turns in the input: runs of call items (parallel calls are one turn), reasoning items aside. */
function toolTurnsIn(items: readonly unknown[]): number {
  let turns = 0;
  let inRun = false;
  for (const item of items) {
    const type = isJsonObject(item) ? item['type'] : undefined;
    if (type === 'reasoning') continue;
    const isCall = CALL_ITEMS.has(type);
    if (isCall && !inRun) turns++;
    inRun = isCall;
  }
  return turns;
}

function responsesToolChoice(body: Json, tools: readonly ToolSpec[]): ToolChoice {
  const value = body['tool_choice'];
  const word = toolChoiceWord(value);
  if (word !== undefined) return word;
  if (isJsonObject(value) && value['type'] === 'function' && typeof value['name'] === 'string') {
    return checkedToolChoice({ name: value['name'] }, tools, 'tool_choice');
  }
  return 'auto';
}

/** `reasoning` asks for reasoning unless its effort is `none`; without an effort, medium. */
function reasoningEffort(body: Json): string | undefined {
  const reasoning = body['reasoning'];
  if (!isJsonObject(reasoning) || reasoning['effort'] === 'none') return undefined;
  return effortField(reasoning['effort'], 'reasoning.effort') ?? 'medium';
}

function parse(body: unknown): GenerationRequest {
  const b = asObject(body);
  const input = b['input'];
  if (input === undefined) throw new RequestRejection(400, "Missing required parameter: 'input'.", 'input');
  const instructions = typeof b['instructions'] === 'string' ? [textMessage(b['instructions'])] : [];
  let items: unknown[] = [];
  let messages: PromptMessage[];
  if (typeof input === 'string') {
    messages = [textMessage(input)];
  } else {
    if (!Array.isArray(input) || input.length === 0) {
      throw new RequestRejection(422, 'input must be a string or a non-empty list of items', 'input');
    }
    items = input;
    messages = items.map(inputItem).filter((m): m is PromptMessage => m !== null);
  }
  const toolList = optionalList(b, 'tools');
  const tools = toolList.flatMap((tool) => {
    const spec =
      isJsonObject(tool) && tool['type'] === 'function'
        ? toolSpec(tool['name'], tool['parameters'])
        : undefined;
    return spec === undefined ? [] : [spec];
  });
  const prompt = conversationPrompt([...toolListMessages(toolList), ...instructions, ...messages]);
  const include = b['include'];
  const previous = b['previous_response_id'];
  return {
    ...NO_AGENT_FIELDS,
    protocol: 'openai-responses',
    model: optionalModel(b),
    promptText: prompt.text,
    promptTokens: prompt.blocks.tokens,
    blocks: prompt.blocks,
    stream: b['stream'] === true,
    includeUsage: true,
    continuousUsage: false,
    maxTokens: maxTokensField(b, 'max_output_tokens'),
    ignoreEos: false,
    stop: [],
    temperature: temperatureField(b),
    tools,
    toolChoice: responsesToolChoice(b, tools),
    toolTurns: toolTurnsIn(items),
    reasoningEffort: reasoningEffort(b),
    previousResponseId: typeof previous === 'string' && previous !== '' ? previous : undefined,
    encryptedReasoning: Array.isArray(include) && include.includes('reasoning.encrypted_content'),
  };
}

function functionCallItemId(call: PlannedToolCall): string {
  return `fc_${call.idSuffix}`;
}

class ResponsesWire implements AnswerWire {
  private sequence = 0;
  /** Every delta so far: the *.done events and the final response repeat the whole text, as OpenAI's do. */
  private text = '';
  private reasoningText = '';
  private argumentsText = '';
  /** Still inside the reasoning item (reasoning mode, before the first answer delta). */
  private inReasoning: boolean;
  /** The answer item (message or function call) was opened. */
  private answerOpened = false;
  private readonly itemId: string;
  private readonly reasoningId: string;
  /** The answer item's output_index: 1 after a reasoning item, else 0. */
  private readonly answerIndex: number;
  /** The request asked for reasoning: it streams as a summary, as OpenAI's reasoning models do. */
  private readonly summary: boolean;
  private readonly deltaHead: string;

  constructor(private readonly context: WireContext) {
    this.itemId = `msg_${context.id}`;
    this.reasoningId = `rs_${context.id}`;
    this.inReasoning = context.reasoning;
    this.answerIndex = context.reasoning ? 1 : 0;
    this.summary = context.request.reasoningEffort !== undefined;
    this.deltaHead = `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":${JSON.stringify(this.itemId)},"output_index":${this.answerIndex},"content_index":0,"delta":`;
  }

  private event(type: string, data: object): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.sequence++, ...data })}\n\n`;
  }

  private response(status: string, output: object[], usage: TokenUsage | null): Json {
    const { id, created, model } = this.context;
    return {
      id,
      object: 'response',
      created_at: created,
      status,
      model,
      output,
      usage:
        usage === null
          ? null
          : {
              input_tokens: usage.promptTokens,
              input_tokens_details: { cached_tokens: usage.cachedTokens },
              output_tokens: usage.completionTokens,
              output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
              total_tokens: usage.promptTokens + usage.completionTokens,
            },
    };
  }

  private message(text: string, status: string): object {
    return {
      id: this.itemId,
      type: 'message',
      status,
      role: 'assistant',
      content: [{ type: 'output_text', text, annotations: [] }],
    };
  }

  private functionCall(args: string, status: string): object {
    const call = this.context.toolCall as PlannedToolCall;
    return {
      id: functionCallItemId(call),
      type: 'function_call',
      status,
      arguments: args,
      call_id: chatToolCallId(call),
      name: call.name,
    };
  }

  /**
   * A reasoning item: as a summary when the request asked for reasoning (OpenAI's form), else with the raw
   * reasoning text (what open-weight reasoning models served by vLLM produce, --reasoning-tokens).
   */
  private reasoningItem(text: string): object {
    const encrypted = this.context.request.encryptedReasoning
      ? { encrypted_content: ENCRYPTED_REASONING }
      : {};
    return this.summary
      ? { id: this.reasoningId, type: 'reasoning', summary: [{ type: 'summary_text', text }], ...encrypted }
      : {
          id: this.reasoningId,
          type: 'reasoning',
          summary: [],
          content: [{ type: 'reasoning_text', text }],
          ...encrypted,
        };
  }

  /** The output items so far, for the final response. */
  private output(): object[] {
    const answer = !this.answerOpened
      ? []
      : this.context.toolCall !== undefined && this.argumentsText !== ''
        ? [this.functionCall(this.argumentsText, 'completed')]
        : [this.message(this.text, 'completed')];
    return this.context.reasoning ? [this.reasoningItem(this.reasoningText), ...answer] : answer;
  }

  private messageOpening(): string {
    this.answerOpened = true;
    const index = { output_index: this.answerIndex };
    return (
      this.event('response.output_item.added', {
        ...index,
        item: { id: this.itemId, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
      }) +
      this.event('response.content_part.added', {
        item_id: this.itemId,
        ...index,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      })
    );
  }

  private reasoningPart(): { where: object; part: (text: string) => object; prefix: string } {
    return this.summary
      ? {
          where: { item_id: this.reasoningId, output_index: 0, summary_index: 0 },
          part: (text) => ({ type: 'summary_text', text }),
          prefix: 'response.reasoning_summary',
        }
      : {
          where: { item_id: this.reasoningId, output_index: 0, content_index: 0 },
          part: (text) => ({ type: 'reasoning_text', text }),
          prefix: 'response',
        };
  }

  private reasoningOpening(): string {
    const { where, part, prefix } = this.reasoningPart();
    const item = this.summary
      ? { id: this.reasoningId, type: 'reasoning', summary: [] }
      : { id: this.reasoningId, type: 'reasoning', summary: [], content: [] };
    const partAdded = this.summary ? `${prefix}_part.added` : 'response.content_part.added';
    return (
      this.event('response.output_item.added', { output_index: 0, item }) +
      this.event(partAdded, { ...where, part: part('') })
    );
  }

  private reasoningClosing(): string {
    this.inReasoning = false;
    const { where, part, prefix } = this.reasoningPart();
    const text = this.reasoningText;
    const textDone = this.summary ? `${prefix}_text.done` : 'response.reasoning_text.done';
    const partDone = this.summary ? `${prefix}_part.done` : 'response.content_part.done';
    return (
      this.event(textDone, { ...where, text }) +
      this.event(partDone, { ...where, part: part(text) }) +
      this.event('response.output_item.done', { output_index: 0, item: this.reasoningItem(text) })
    );
  }

  opening(): string {
    const lifecycle =
      this.event('response.created', { response: this.response('in_progress', [], null) }) +
      this.event('response.in_progress', { response: this.response('in_progress', [], null) });
    // A function_call item opens with the call's first piece, when the model has chosen the tool.
    if (this.context.reasoning) return lifecycle + this.reasoningOpening();
    return this.context.toolCall === undefined ? lifecycle + this.messageOpening() : lifecycle;
  }

  beforeFirstContent(): string {
    return '';
  }

  reasoning(text: string): string {
    this.reasoningText += text;
    const type = this.summary ? 'response.reasoning_summary_text.delta' : 'response.reasoning_text.delta';
    return this.event(type, { ...this.reasoningPart().where, delta: text });
  }

  content(text: string): string {
    const opening = this.inReasoning ? this.reasoningClosing() + this.messageOpening() : '';
    this.text += text;
    return `${opening}${this.deltaHead}${JSON.stringify(text)},"sequence_number":${this.sequence++}}\n\n`;
  }

  toolArguments(text: string): string {
    let opening = '';
    if (!this.answerOpened) {
      if (this.inReasoning) opening = this.reasoningClosing();
      this.answerOpened = true;
      opening += this.event('response.output_item.added', {
        output_index: this.answerIndex,
        item: this.functionCall('', 'in_progress'),
      });
    }
    this.argumentsText += text;
    const call = this.context.toolCall as PlannedToolCall;
    return (
      opening +
      this.event('response.function_call_arguments.delta', {
        item_id: functionCallItemId(call),
        output_index: this.answerIndex,
        delta: text,
      })
    );
  }

  private answerClosing(): string {
    const call = this.context.toolCall;
    if (call !== undefined && this.argumentsText !== '') {
      const args = this.argumentsText;
      return (
        this.event('response.function_call_arguments.done', {
          item_id: functionCallItemId(call),
          output_index: this.answerIndex,
          name: call.name,
          arguments: args,
        }) +
        this.event('response.output_item.done', {
          output_index: this.answerIndex,
          item: this.functionCall(args, 'completed'),
        })
      );
    }
    const done = { item_id: this.itemId, output_index: this.answerIndex, content_index: 0 };
    const text = this.text;
    return (
      this.event('response.output_text.done', { ...done, text }) +
      this.event('response.content_part.done', {
        ...done,
        part: { type: 'output_text', text, annotations: [] },
      }) +
      this.event('response.output_item.done', {
        output_index: this.answerIndex,
        item: this.message(text, 'completed'),
      })
    );
  }

  closing(finish: FinishReason, usage: TokenUsage): string {
    // Clients such as Codex show the text from these events, not from the deltas; the meter must not count it
    // twice (the classifier ignores *.done, and the tests compare its counts with usage).
    const status = finish === 'length' ? 'incomplete' : 'completed';
    // An answer cut short inside its reasoning: the final output holds the reasoning item alone.
    const items = this.inReasoning ? this.reasoningClosing() : this.answerClosing();
    return (
      items +
      this.event(finish === 'length' ? 'response.incomplete' : 'response.completed', {
        response: {
          ...this.response(status, this.output(), usage),
          ...(finish === 'length' ? { incomplete_details: { reason: 'max_output_tokens' } } : {}),
        },
      })
    );
  }

  streamError(message: string): string {
    return this.event('response.failed', {
      response: { ...this.response('failed', [], null), error: { code: 'server_error', message } },
    });
  }

  body({ reasoning, text }: AnswerTexts, finish: FinishReason, usage: TokenUsage): object {
    const status = finish === 'length' ? 'incomplete' : 'completed';
    const reasoningItems = this.context.reasoning ? [this.reasoningItem(reasoning)] : [];
    const call = this.context.toolCall;
    const answer =
      finish === 'tool_calls' && call !== undefined
        ? this.functionCall(call.arguments, 'completed')
        : this.message(text, 'completed');
    const response = this.response(status, [...reasoningItems, answer], usage);
    // Like the streamed response.incomplete event: the reason travels in incomplete_details.
    return finish === 'length'
      ? { ...response, incomplete_details: { reason: 'max_output_tokens' } }
      : response;
  }
}

export const openAIResponses: SimProtocol = {
  name: 'openai-responses',
  path: '/v1/responses',
  idPrefix: 'resp',
  parse,
  wire: (context) => new ResponsesWire(context),
  error: (status, message, code, param = null) =>
    openAIError(message, status >= 500 ? 'server_error' : 'invalid_request_error', code, param),
  hasKey: bearerKey,
};
