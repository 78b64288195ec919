// The bytes vLLM's OpenAI server writes, for chat and completions, streamed and not. Each answer builds its
// constant JSON prefix once, so a content event costs one string concatenation and one JSON.stringify of the text.
import type {
  AnswerTexts,
  AnswerWire,
  FinishReason,
  PlannedToolCall,
  TokenUsage,
  WireContext,
} from './protocol.js';

export function chatToolCallId(call: PlannedToolCall): string {
  return `call_${call.idSuffix}`;
}

/** OpenAI's usage; the details objects only when there is something to say (prefix caching on, reasoning). */
export function openAIUsage(usage: TokenUsage) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    ...(usage.reportsCache ? { prompt_tokens_details: { cached_tokens: usage.cachedTokens } } : {}),
    ...(usage.reasoningTokens > 0
      ? { completion_tokens_details: { reasoning_tokens: usage.reasoningTokens } }
      : {}),
  };
}

export class OpenAIWire implements AnswerWire {
  private readonly head: string;
  private readonly isChat: boolean;
  private toolCallOpened = false;

  constructor(private readonly context: WireContext) {
    this.isChat = context.request.protocol === 'openai-chat';
    const object = this.isChat ? 'chat.completion.chunk' : 'text_completion';
    this.head = `data: {"id":${JSON.stringify(context.id)},"object":"${object}","created":${context.created},"model":${JSON.stringify(context.model)},`;
  }

  private roleEvent(): string {
    return `${this.head}"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]${this.runningUsage(0)}}\n\n`;
  }

  /**
   * vLLM's continuous_usage_stats: the usage so far after the choices of every chunk (the role chunk's says 0
   * completion tokens), with the three counts only, as vLLM writes it; '' when not asked for.
   */
  private runningUsage(completionTokens: number): string {
    const request = this.context.request;
    if (!request.continuousUsage) return '';
    const prompt = request.promptTokens;
    return `,"usage":{"prompt_tokens":${prompt},"completion_tokens":${completionTokens},"total_tokens":${prompt + completionTokens}}`;
  }

  opening(): string {
    return this.isChat && this.context.roleChunk === 'immediately' ? this.roleEvent() : '';
  }

  beforeFirstContent(): string {
    return this.isChat && this.context.roleChunk === 'with-first-token' ? this.roleEvent() : '';
  }

  /** Chat only: completions has no reasoning field, and the simulator plans no reasoning for it. */
  reasoning(text: string, completionTokens: number): string {
    const field = this.context.chatReasoningField;
    return `${this.head}"choices":[{"index":0,"delta":{"${field}":${JSON.stringify(text)}},"logprobs":null,"finish_reason":null}]${this.runningUsage(completionTokens)}}\n\n`;
  }

  content(text: string, completionTokens: number): string {
    const quoted = JSON.stringify(text);
    const usage = this.runningUsage(completionTokens);
    return this.isChat
      ? `${this.head}"choices":[{"index":0,"delta":{"content":${quoted}},"logprobs":null,"finish_reason":null}]${usage}}\n\n`
      : `${this.head}"choices":[{"index":0,"text":${quoted},"logprobs":null,"finish_reason":null}]${usage}}\n\n`;
  }

  /**
   * Chat only (completions plans no tool calls): the first piece carries the call's index, id, type and name with
   * the arguments' first piece, in one delta, so each chunk is one content event; later pieces only arguments.
   */
  toolArguments(text: string, completionTokens: number): string {
    const call = this.context.toolCall as PlannedToolCall;
    const piece = this.toolCallOpened
      ? { index: 0, function: { arguments: text } }
      : {
          index: 0,
          id: chatToolCallId(call),
          type: 'function',
          function: { name: call.name, arguments: text },
        };
    this.toolCallOpened = true;
    return `${this.head}"choices":[{"index":0,"delta":{"tool_calls":[${JSON.stringify(piece)}]},"logprobs":null,"finish_reason":null}]${this.runningUsage(completionTokens)}}\n\n`;
  }

  closing(finish: FinishReason, usage: TokenUsage): string {
    const reason = JSON.stringify(finish);
    const running = this.runningUsage(usage.completionTokens);
    const finishEvent = this.isChat
      ? `${this.head}"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":${reason},"stop_reason":null}]${running}}\n\n`
      : `${this.head}"choices":[{"index":0,"text":"","logprobs":null,"finish_reason":${reason},"stop_reason":null}]${running}}\n\n`;
    // The usage-only chunk (empty choices) only when the client asked for stream_options.include_usage.
    const usageEvent = this.context.request.includeUsage
      ? `${this.head}"choices":[],"usage":${JSON.stringify(openAIUsage(usage))}}\n\n`
      : '';
    return `${finishEvent}${usageEvent}data: [DONE]\n\n`;
  }

  streamError(message: string): string {
    return `data: ${JSON.stringify(errorInsteadOfChoices(message))}\n\n`;
  }

  body({ reasoning, text }: AnswerTexts, finish: FinishReason, usage: TokenUsage): object {
    const { id, created, model, chatReasoningField } = this.context;
    const call = finish === 'tool_calls' ? this.context.toolCall : undefined;
    const message = {
      role: 'assistant',
      ...(this.context.reasoning ? { [chatReasoningField]: reasoning } : {}),
      content: call === undefined ? text : null,
      tool_calls:
        call === undefined
          ? []
          : [
              {
                id: chatToolCallId(call),
                type: 'function',
                function: { name: call.name, arguments: call.arguments },
              },
            ],
    };
    const choice = this.isChat ? { index: 0, message, logprobs: null } : { index: 0, text, logprobs: null };
    return {
      id,
      object: this.isChat ? 'chat.completion' : 'text_completion',
      created,
      model,
      choices: [{ ...choice, finish_reason: finish, stop_reason: null }],
      usage: openAIUsage(usage),
    };
  }
}

/** A 200 answer that carries an error instead of choices (the article's "reading choices" failure). */
export function errorInsteadOfChoices(message: string): object {
  return { error: { message, type: 'upstream_error', code: 'provider_error' } };
}
