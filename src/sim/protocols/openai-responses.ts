// OpenAI's Responses API (/v1/responses), streamed and not. Like Anthropic's, its stream opens with lifecycle
// events (response.created, response.in_progress, output_item.added, content_part.added) that carry no text.
import { openAIError } from '../../shared/openai-error.js';
import type {
  AnswerTexts,
  AnswerWire,
  FinishReason,
  GenerationRequest,
  SimProtocol,
  TokenUsage,
  WireContext,
} from './protocol.js';
import { bearerKey, RequestRejection } from './protocol.js';
import {
  asObject,
  conversationPrompt,
  type Json,
  maxTokensField,
  messageTexts,
  optionalModel,
  temperatureField,
} from './request-fields.js';

const TEXT_PARTS = ['input_text', 'text', 'output_text'];

function parse(body: unknown): GenerationRequest {
  const b = asObject(body);
  const input = b['input'];
  if (input === undefined) throw new RequestRejection(400, "Missing required parameter: 'input'.", 'input');
  const instructions = typeof b['instructions'] === 'string' ? [b['instructions']] : [];
  const texts = typeof input === 'string' ? [input] : messageTexts(input, 'input', TEXT_PARTS);
  const prompt = conversationPrompt([...instructions, ...texts]);
  return {
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
  };
}

class ResponsesWire implements AnswerWire {
  private sequence = 0;
  /** Every delta so far: the *.done events and the final response repeat the whole text, as OpenAI's do. */
  private text = '';
  private reasoningText = '';
  /** Still inside the reasoning item (reasoning mode, before the first answer delta). */
  private inReasoning: boolean;
  private readonly itemId: string;
  private readonly reasoningId: string;
  /** The message's output_index: 1 after a reasoning item, else 0. */
  private readonly messageIndex: number;
  private readonly deltaHead: string;

  constructor(private readonly context: WireContext) {
    this.itemId = `msg_${context.id}`;
    this.reasoningId = `rs_${context.id}`;
    this.inReasoning = context.reasoning;
    this.messageIndex = context.reasoning ? 1 : 0;
    this.deltaHead = `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":${JSON.stringify(this.itemId)},"output_index":${this.messageIndex},"content_index":0,"delta":`;
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

  /** A reasoning item with the raw reasoning text, as open-weight reasoning models served by vLLM produce. */
  private reasoningItem(text: string): object {
    return {
      id: this.reasoningId,
      type: 'reasoning',
      summary: [],
      content: [{ type: 'reasoning_text', text }],
    };
  }

  /** The output items so far, for the final response. */
  private output(): object[] {
    const message = this.inReasoning ? [] : [this.message(this.text, 'completed')];
    return this.context.reasoning ? [this.reasoningItem(this.reasoningText), ...message] : message;
  }

  private messageOpening(): string {
    const index = { output_index: this.messageIndex };
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

  private reasoningOpening(): string {
    return (
      this.event('response.output_item.added', {
        output_index: 0,
        item: { id: this.reasoningId, type: 'reasoning', summary: [], content: [] },
      }) +
      this.event('response.content_part.added', {
        item_id: this.reasoningId,
        output_index: 0,
        content_index: 0,
        part: { type: 'reasoning_text', text: '' },
      })
    );
  }

  private reasoningClosing(): string {
    this.inReasoning = false;
    const done = { item_id: this.reasoningId, output_index: 0, content_index: 0 };
    const text = this.reasoningText;
    return (
      this.event('response.reasoning_text.done', { ...done, text }) +
      this.event('response.content_part.done', { ...done, part: { type: 'reasoning_text', text } }) +
      this.event('response.output_item.done', { output_index: 0, item: this.reasoningItem(text) })
    );
  }

  opening(): string {
    return (
      this.event('response.created', { response: this.response('in_progress', [], null) }) +
      this.event('response.in_progress', { response: this.response('in_progress', [], null) }) +
      (this.context.reasoning ? this.reasoningOpening() : this.messageOpening())
    );
  }

  beforeFirstContent(): string {
    return '';
  }

  reasoning(text: string): string {
    this.reasoningText += text;
    return this.event('response.reasoning_text.delta', {
      item_id: this.reasoningId,
      output_index: 0,
      content_index: 0,
      delta: text,
    });
  }

  content(text: string): string {
    const opening = this.inReasoning ? this.reasoningClosing() + this.messageOpening() : '';
    this.text += text;
    return `${opening}${this.deltaHead}${JSON.stringify(text)},"sequence_number":${this.sequence++}}\n\n`;
  }

  closing(finish: FinishReason, usage: TokenUsage): string {
    // Clients such as Codex show the text from these events, not from the deltas; the meter must not count it
    // twice (the classifier ignores *.done, and the tests compare its counts with usage).
    const status = finish === 'length' ? 'incomplete' : 'completed';
    let items: string;
    if (this.inReasoning) {
      items = this.reasoningClosing();
      this.inReasoning = true; // the answer never started: the final output holds the reasoning item alone
    } else {
      const done = { item_id: this.itemId, output_index: this.messageIndex, content_index: 0 };
      const text = this.text;
      items =
        this.event('response.output_text.done', { ...done, text }) +
        this.event('response.content_part.done', {
          ...done,
          part: { type: 'output_text', text, annotations: [] },
        }) +
        this.event('response.output_item.done', {
          output_index: this.messageIndex,
          item: this.message(text, 'completed'),
        });
    }
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
    const response = this.response(status, [...reasoningItems, this.message(text, 'completed')], usage);
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
