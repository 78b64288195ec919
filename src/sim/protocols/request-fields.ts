// Request fields read the same way by every protocol, with the same checks.
import { PromptBlockHasher } from '../prompt-blocks.js';
import { RequestRejection } from './protocol.js';

export type Json = Record<string, unknown>;

/**
 * Tokens a chat template adds (Llama/Qwen-like templates): 3 open a message (`<|im_start|>`, the role, a newline),
 * 1 closes it, and the 3 opening ones of an assistant message prompt the reply. So a next turn's prompt repeats
 * this prompt, this answer and its closing token, block for block.
 */
const TEMPLATE_TOKENS_OPENING_MESSAGE = 3;
const TEMPLATE_TOKENS_CLOSING_MESSAGE = 1;

export function asObject(body: unknown): Json {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new RequestRejection(422, 'the request body must be a JSON object');
  }
  return body as Json;
}

export function optionalNumber(body: Json, name: string): number | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new RequestRejection(422, `${name} must be a number`, name);
  }
  return value;
}

export function optionalModel(body: Json): string | undefined {
  const model = body['model'];
  if (model !== undefined && typeof model !== 'string')
    throw new RequestRejection(422, 'model must be a string');
  return model;
}

export function maxTokensField(body: Json, name: string): number | undefined {
  const value = optionalNumber(body, name);
  if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
    throw new RequestRejection(400, `${name} must be a positive integer`, name);
  }
  return value;
}

export function temperatureField(body: Json): number {
  const temperature = optionalNumber(body, 'temperature') ?? 1;
  if (temperature < 0 || temperature > 2) {
    throw new RequestRejection(400, 'temperature must be between 0 and 2', 'temperature');
  }
  return temperature;
}

export function stopStrings(value: unknown, name: string): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((s) => typeof s === 'string')) return value;
  throw new RequestRejection(422, `${name} must be a string or a list of strings`, name);
}

/** Message content as a string or a list of text parts; `textTypes` names the part types that carry text. */
export function contentText(content: unknown, where: string, textTypes: readonly string[]): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (Array.isArray(content)) {
    return content
      .map((part: unknown, index) => {
        const p = part as Json;
        if (p && textTypes.includes(String(p['type'])) && typeof p['text'] === 'string') return p['text'];
        throw new RequestRejection(
          422,
          `${where}[${index}] must be a text part {"type": "${textTypes[0]}", "text": "..."}`,
          where,
        );
      })
      .join('\n');
  }
  throw new RequestRejection(422, `${where} must be a string or a list of text parts`, where);
}

export interface Prompt {
  readonly text: string;
  /** Its tokens and KV block hashes, the chain ready to continue over the answer. */
  readonly blocks: PromptBlockHasher;
}

/** A conversation's text, its tokens under the built-in rule with chat-template overhead, and its KV blocks. */
export function conversationPrompt(texts: readonly string[]): Prompt {
  const blocks = new PromptBlockHasher();
  for (const text of texts) {
    blocks.template(TEMPLATE_TOKENS_OPENING_MESSAGE).text(text).template(TEMPLATE_TOKENS_CLOSING_MESSAGE);
  }
  return { text: texts.join('\n'), blocks: blocks.template(TEMPLATE_TOKENS_OPENING_MESSAGE) };
}

/** A completions prompt: its text alone, no template. */
export function plainPrompt(text: string): Prompt {
  return { text, blocks: new PromptBlockHasher().text(text) };
}

export function messageTexts(messages: unknown, where: string, textTypes: readonly string[]): string[] {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new RequestRejection(422, `${where} must be a non-empty list`, where);
  }
  return messages.map((m: unknown, i) => {
    if (typeof m !== 'object' || m === null || typeof (m as Json)['role'] !== 'string') {
      throw new RequestRejection(422, `${where}[${i}] must be an object with a string "role"`, where);
    }
    return contentText((m as Json)['content'], `${where}[${i}].content`, textTypes);
  });
}
