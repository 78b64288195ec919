// Request fields read the same way by every protocol, with the same checks.
import { isJsonObject } from '../../shared/json-object.js';
import { imageMarker, PromptBlockHasher } from '../prompt-blocks.js';
import { RequestRejection, type ToolChoice, type ToolSpec } from './protocol.js';

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

/** One piece of a message as the prompt holds it: text, an image, or a tool call the assistant made. */
export type PromptPart =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'image'; readonly marker: string }
  | { readonly kind: 'tool-call'; readonly name: string; readonly arguments: string };
export type PromptMessage = readonly PromptPart[];

/** Reads one content part of a protocol's message; undefined when the part is not one the protocol accepts here. */
export type PartReader = (part: Json) => PromptPart[] | undefined;

export function textMessage(text: string): PromptMessage {
  return [{ kind: 'text', text }];
}

/**
 * Message content: a string or a list of parts, each read by `read`. `accepted` names the parts `read` takes, for
 * the 422 that says what a part must be.
 */
export function contentParts(
  content: unknown,
  where: string,
  read: PartReader,
  accepted: string,
): PromptPart[] {
  if (typeof content === 'string') return [{ kind: 'text', text: content }];
  if (content === null || content === undefined) return [];
  if (Array.isArray(content)) {
    return content.flatMap((part: unknown, index) => {
      const parts = isJsonObject(part) ? read(part) : undefined;
      if (parts === undefined)
        throw new RequestRejection(422, `${where}[${index}] must be ${accepted}`, where);
      return parts;
    });
  }
  throw new RequestRejection(422, `${where} must be a string or a list of content parts`, where);
}

/** A text part of one of `types` (`{"type": "text", "text": "..."}`). */
export function textPart(part: Json, types: readonly string[]): PromptPart[] | undefined {
  const text = part['text'];
  return types.includes(String(part['type'])) && typeof text === 'string'
    ? [{ kind: 'text', text }]
    : undefined;
}

/** An image given by its URL, its data or its file id: IMAGE_TOKENS prompt tokens, keyed on that source. */
export function imagePart(source: unknown): PromptPart[] | undefined {
  return typeof source === 'string' && source !== ''
    ? [{ kind: 'image', marker: imageMarker(source) }]
    : undefined;
}

/** A tool call in the history: its name and its arguments as JSON text. */
export function toolCallPart(name: unknown, args: unknown, where: string): PromptPart {
  if (typeof name !== 'string' || name === '') {
    throw new RequestRejection(422, `${where} must name its tool`, where);
  }
  const text = typeof args === 'string' ? args : args === undefined ? '' : JSON.stringify(args);
  return { kind: 'tool-call', name, arguments: text };
}

/** Message content as a string or a list of text parts; `textTypes` names the part types that carry text. */
export function contentText(content: unknown, where: string, textTypes: readonly string[]): string {
  const parts = contentParts(
    content,
    where,
    (part) => textPart(part, textTypes),
    `a text part {"type": "${textTypes[0]}", "text": "..."}`,
  );
  return messageText(parts);
}

/**
 * The request's tool list as the prompt holds it: its JSON, as one message before everything else, the way chat
 * templates render tools into the prompt (and hosted APIs count them as input). None when the list is empty.
 */
export function toolListMessages(tools: readonly unknown[]): PromptMessage[] {
  return tools.length === 0 ? [] : [textMessage(JSON.stringify(tools))];
}

export interface Prompt {
  readonly text: string;
  /** Its tokens and KV block hashes, the chain ready to continue over the answer. */
  readonly blocks: PromptBlockHasher;
}

function partText(part: PromptPart): string {
  if (part.kind === 'text') return part.text;
  if (part.kind === 'image') return part.marker;
  return part.name + part.arguments;
}

function messageText(message: PromptMessage): string {
  return message.map(partText).join('\n');
}

/**
 * A conversation's text (what the answer is derived from), its tokens under the built-in rule with chat-template
 * overhead, and its KV blocks. A tool call counts its name as one token and its arguments under the rule, exactly
 * as the simulator generated it (answer-text.ts), so a next turn repeats the previous answer block for block.
 */
export function conversationPrompt(messages: readonly PromptMessage[]): Prompt {
  const blocks = new PromptBlockHasher();
  for (const message of messages) {
    blocks.template(TEMPLATE_TOKENS_OPENING_MESSAGE);
    for (const part of message) {
      if (part.kind === 'text') blocks.text(part.text);
      else if (part.kind === 'image') blocks.image(part.marker);
      else blocks.generated(part.name).text(part.arguments);
    }
    blocks.template(TEMPLATE_TOKENS_CLOSING_MESSAGE);
  }
  return {
    text: messages.map(messageText).join('\n'),
    blocks: blocks.template(TEMPLATE_TOKENS_OPENING_MESSAGE),
  };
}

/** A completions prompt: its text alone, no template. */
export function plainPrompt(text: string): Prompt {
  return { text, blocks: new PromptBlockHasher().text(text) };
}

/** A non-empty list of messages, each an object with a string `role`. */
export function messageList(messages: unknown, where: string): Json[] {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new RequestRejection(422, `${where} must be a non-empty list`, where);
  }
  return messages.map((m: unknown, i) => {
    if (!isJsonObject(m) || typeof m['role'] !== 'string') {
      throw new RequestRejection(422, `${where}[${i}] must be an object with a string "role"`, where);
    }
    return m;
  });
}

/** An optional list field (`tools`): [] when absent, a 422 when not a list. */
export function optionalList(body: Json, name: string): unknown[] {
  const value = body[name];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new RequestRejection(422, `${name} must be a list`, name);
  return value;
}

/** The reasoning efforts a request may name; `none` asks for none. */
export function effortField(value: unknown, where: string): string | undefined {
  if (value === undefined || value === null || value === 'none') return undefined;
  if (typeof value !== 'string') throw new RequestRejection(422, `${where} must be a string`, where);
  return value;
}

/** A function tool of the request, when it has a name; a missing schema means no arguments. */
export function toolSpec(name: unknown, schema: unknown): ToolSpec | undefined {
  return typeof name === 'string' && name !== '' ? { name, schema: schema ?? { type: 'object' } } : undefined;
}

/** A tool choice that names a tool must name one of the request's function tools (400 otherwise, as OpenAI's). */
export function checkedToolChoice(choice: ToolChoice, tools: readonly ToolSpec[], param: string): ToolChoice {
  if (typeof choice === 'object' && !tools.some((tool) => tool.name === choice.name)) {
    const message = `${param} names the tool ${JSON.stringify(choice.name)}, which is not a function tool of this request`;
    throw new RequestRejection(400, message, param);
  }
  return choice;
}

/** `auto`, `none` and `required` as strings, the protocols' spelling of them; anything else is `auto`. */
export function toolChoiceWord(value: unknown): ToolChoice | undefined {
  return value === 'none' || value === 'required' || value === 'auto' ? value : undefined;
}
