// OpenAI's Responses API (/v1/responses), streamed and not. Like Anthropic's, its stream opens with lifecycle
// events (response.created, response.in_progress, output_item.added, content_part.added) that carry no text.
import { openAIError } from '../../shared/openai-error.js';
import type {
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
    promptTokens: prompt.tokens,
    stream: b['stream'] === true,
    includeUsage: true,
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
  private readonly itemId: string;
  private readonly deltaHead: string;

  constructor(private readonly context: WireContext) {
    this.itemId = `msg_${context.id}`;
    this.deltaHead = `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":${JSON.stringify(this.itemId)},"output_index":0,"content_index":0,"delta":`;
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
              output_tokens: usage.completionTokens,
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

  opening(): string {
    return (
      this.event('response.created', { response: this.response('in_progress', [], null) }) +
      this.event('response.in_progress', { response: this.response('in_progress', [], null) }) +
      this.event('response.output_item.added', {
        output_index: 0,
        item: { id: this.itemId, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
      }) +
      this.event('response.content_part.added', {
        item_id: this.itemId,
        output_index: 0,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      })
    );
  }

  beforeFirstContent(): string {
    return '';
  }

  content(text: string): string {
    this.text += text;
    return `${this.deltaHead}${JSON.stringify(text)},"sequence_number":${this.sequence++}}\n\n`;
  }

  closing(finish: FinishReason, usage: TokenUsage): string {
    // Clients such as Codex show the text from these events, not from the deltas; the meter must not count it
    // twice (the classifier ignores *.done, and the tests compare its counts with usage).
    const status = finish === 'length' ? 'incomplete' : 'completed';
    const done = { item_id: this.itemId, output_index: 0, content_index: 0 };
    const text = this.text;
    return (
      this.event('response.output_text.done', { ...done, text }) +
      this.event('response.content_part.done', {
        ...done,
        part: { type: 'output_text', text, annotations: [] },
      }) +
      this.event('response.output_item.done', { output_index: 0, item: this.message(text, 'completed') }) +
      this.event(finish === 'length' ? 'response.incomplete' : 'response.completed', {
        response: {
          ...this.response(status, [this.message(text, 'completed')], usage),
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

  body(text: string, finish: FinishReason, usage: TokenUsage): object {
    const status = finish === 'length' ? 'incomplete' : 'completed';
    const response = this.response(status, [this.message(text, 'completed')], usage);
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
