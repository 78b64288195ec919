// The bytes vLLM's OpenAI server writes, for chat and completions, streamed and not. Each stream builds its
// constant JSON prefix once, so a content event costs one string concatenation and one JSON.stringify of the text.
import type { Endpoint } from './completion-request.js';

export interface Usage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
}

export function usageOf(promptTokens: number, completionTokens: number): Usage {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
}

export class StreamWire {
  private readonly head: string;
  private readonly isChat: boolean;

  constructor(endpoint: Endpoint, id: string, created: number, model: string) {
    this.isChat = endpoint === 'chat';
    const object = this.isChat ? 'chat.completion.chunk' : 'text_completion';
    this.head = `data: {"id":${JSON.stringify(id)},"object":"${object}","created":${created},"model":${JSON.stringify(model)},`;
  }

  /** Chat only: the first delta, carrying the role and no text. */
  roleEvent(): string {
    return `${this.head}"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}\n\n`;
  }

  contentEvent(text: string): string {
    const quoted = JSON.stringify(text);
    return this.isChat
      ? `${this.head}"choices":[{"index":0,"delta":{"content":${quoted}},"logprobs":null,"finish_reason":null}]}\n\n`
      : `${this.head}"choices":[{"index":0,"text":${quoted},"logprobs":null,"finish_reason":null}]}\n\n`;
  }

  finishEvent(finishReason: string): string {
    const reason = JSON.stringify(finishReason);
    return this.isChat
      ? `${this.head}"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":${reason},"stop_reason":null}]}\n\n`
      : `${this.head}"choices":[{"index":0,"text":"","logprobs":null,"finish_reason":${reason},"stop_reason":null}]}\n\n`;
  }

  /** The usage-only chunk (empty choices) sent when the client asked for `stream_options.include_usage`. */
  usageEvent(usage: Usage): string {
    return `${this.head}"choices":[],"usage":${JSON.stringify(usage)}}\n\n`;
  }

  static readonly DONE = 'data: [DONE]\n\n';
}

export function completionBody(
  endpoint: Endpoint,
  id: string,
  created: number,
  model: string,
  text: string,
  finishReason: string,
  usage: Usage,
): object {
  const choice =
    endpoint === 'chat'
      ? { index: 0, message: { role: 'assistant', content: text, tool_calls: [] }, logprobs: null }
      : { index: 0, text, logprobs: null };
  return {
    id,
    object: endpoint === 'chat' ? 'chat.completion' : 'text_completion',
    created,
    model,
    choices: [{ ...choice, finish_reason: finishReason, stop_reason: null }],
    usage,
  };
}

/** The body of a 200 answer that carries an error instead of choices (the article's "reading choices" failure). */
export function errorInsteadOfChoices(): object {
  return {
    error: {
      message: 'The upstream provider returned an error: model overloaded, please retry',
      type: 'upstream_error',
      code: 'provider_error',
    },
  };
}
