// Reads a chat or completions request body the way vLLM's OpenAI server does, and says precisely what is wrong
// when it cannot: 400 for values it rejects, 422 for a body of the wrong shape (the "Unprocessable Entity" users
// meet when a completions body is sent to the chat path, or the other way round).
import { estimateTokens } from '../shared/token-estimate.js';

export type Endpoint = 'chat' | 'completions';

export interface CompletionRequest {
  readonly endpoint: Endpoint;
  readonly model: string | undefined;
  readonly promptText: string;
  readonly promptTokens: number;
  readonly stream: boolean;
  readonly includeUsage: boolean;
  readonly maxTokens: number | undefined;
  readonly ignoreEos: boolean;
  readonly stop: readonly string[];
  readonly temperature: number;
}

export class RequestRejection extends Error {
  constructor(
    readonly status: 400 | 422,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

/** Tokens a chat template adds around each message and before the answer (Llama/Qwen-like templates). */
const TEMPLATE_TOKENS_PER_MESSAGE = 4;
const TEMPLATE_TOKENS_FOR_REPLY = 3;

type Json = Record<string, unknown>;

function messageText(content: unknown, index: number): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (Array.isArray(content)) {
    return content
      .map((part: unknown, partIndex) => {
        const p = part as Json;
        if (p && p['type'] === 'text' && typeof p['text'] === 'string') return p['text'];
        throw new RequestRejection(
          422,
          `messages[${index}].content[${partIndex}] must be a text part {"type": "text", "text": "..."}`,
          `messages[${index}].content`,
        );
      })
      .join('\n');
  }
  throw new RequestRejection(422, `messages[${index}].content must be a string or a list of text parts`);
}

function chatPrompt(body: Json): { text: string; tokens: number } {
  const messages = body['messages'];
  if (messages === undefined) {
    const hint = 'prompt' in body ? ': this body has "prompt", which belongs on /v1/completions' : '';
    throw new RequestRejection(422, `field required: messages${hint}`, 'messages');
  }
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new RequestRejection(422, 'messages must be a non-empty list', 'messages');
  }
  const texts = messages.map((m: unknown, i) => {
    if (typeof m !== 'object' || m === null || typeof (m as Json)['role'] !== 'string') {
      throw new RequestRejection(422, `messages[${i}] must be an object with a string "role"`, 'messages');
    }
    return messageText((m as Json)['content'], i);
  });
  const tokens =
    texts.reduce((sum, t) => sum + estimateTokens(t) + TEMPLATE_TOKENS_PER_MESSAGE, 0) +
    TEMPLATE_TOKENS_FOR_REPLY;
  return { text: texts.join('\n'), tokens };
}

function completionsPrompt(body: Json): { text: string; tokens: number } {
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
  return { text, tokens: estimateTokens(text) };
}

function optionalNumber(body: Json, name: string): number | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new RequestRejection(422, `${name} must be a number`, name);
  }
  return value;
}

function stopStrings(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((s) => typeof s === 'string')) return value;
  throw new RequestRejection(422, 'stop must be a string or a list of strings', 'stop');
}

export function parseCompletionRequest(endpoint: Endpoint, body: unknown): CompletionRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new RequestRejection(422, 'the request body must be a JSON object');
  }
  const b = body as Json;
  const prompt = endpoint === 'chat' ? chatPrompt(b) : completionsPrompt(b);
  const model = b['model'];
  if (model !== undefined && typeof model !== 'string')
    throw new RequestRejection(422, 'model must be a string');
  const maxTokens = optionalNumber(b, 'max_completion_tokens') ?? optionalNumber(b, 'max_tokens');
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 1)) {
    throw new RequestRejection(400, 'max_tokens must be a positive integer', 'max_tokens');
  }
  const n = optionalNumber(b, 'n') ?? 1;
  if (n !== 1) throw new RequestRejection(400, 'n must be 1: the simulator generates one choice', 'n');
  const temperature = optionalNumber(b, 'temperature') ?? 1;
  if (temperature < 0 || temperature > 2) {
    throw new RequestRejection(400, 'temperature must be between 0 and 2', 'temperature');
  }
  const streamOptions = b['stream_options'];
  const includeUsage =
    typeof streamOptions === 'object' &&
    streamOptions !== null &&
    (streamOptions as Json)['include_usage'] === true;
  return {
    endpoint,
    model,
    promptText: prompt.text,
    promptTokens: prompt.tokens,
    stream: b['stream'] === true,
    includeUsage,
    maxTokens,
    ignoreEos: b['ignore_eos'] === true,
    stop: stopStrings(b['stop']),
    temperature,
  };
}
