// What the model answered, as the next turn's history must carry it: the answer's text and its tool calls (id,
// name, arguments), read from the response body in each protocol's form, streamed or not:
//   chat       `choices[0].delta.content` and `tool_calls` deltas (arguments in pieces, keyed by index);
//              plain: `choices[0].message`
//   responses  the `response.completed` event's output (`message` and `function_call` items), else the
//              `response.output_item.done` items; plain: `output`
//   messages   `content_block_start` of text and tool_use blocks, `text_delta` and `input_json_delta` pieces;
//              plain: `content`
// Reasoning is not carried (the history of a real agent replays it only in encrypted form). A body that is not
// one of these reads as an empty answer.

import { isJsonObject } from '../../src/shared/json-object.js';
import type { AgentApi } from '../traces/agent-sessions.js';

export interface AnswerToolCall {
  readonly id: string;
  readonly name: string;
  /** Arguments as JSON text. */
  readonly arguments: string;
}

export interface ReadAnswer {
  readonly text: string;
  readonly toolCalls: readonly AnswerToolCall[];
}

type Json = Record<string, unknown>;

/** The JSON of each `data:` event of an event stream, or the body itself when it is one JSON document. */
function documents(body: string): Json[] {
  const trimmed = body.trimStart();
  if (trimmed.startsWith('{')) {
    try {
      const value: unknown = JSON.parse(trimmed);
      return isJsonObject(value) ? [value] : [];
    } catch {
      return [];
    }
  }
  const out: Json[] = [];
  for (const event of body.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n');
    if (data === '' || data === '[DONE]') continue;
    try {
      const value: unknown = JSON.parse(data);
      if (isJsonObject(value)) out.push(value);
    } catch {
      // A line that is not JSON carries nothing for the history.
    }
  }
  return out;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function argumentText(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined ? '{}' : JSON.stringify(value);
}

function chatAnswer(events: readonly Json[]): ReadAnswer {
  let text = '';
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  const addCalls = (list: unknown): void => {
    if (!Array.isArray(list)) return;
    for (const [position, raw] of list.entries()) {
      if (!isJsonObject(raw)) continue;
      const index = typeof raw['index'] === 'number' ? raw['index'] : position;
      const call = calls.get(index) ?? { id: '', name: '', arguments: '' };
      const fn = isJsonObject(raw['function']) ? raw['function'] : {};
      call.id ||= str(raw['id']);
      call.name ||= str(fn['name']);
      call.arguments += str(fn['arguments']);
      calls.set(index, call);
    }
  };
  for (const event of events) {
    const choice = Array.isArray(event['choices']) ? event['choices'][0] : undefined;
    if (!isJsonObject(choice)) continue;
    const part = isJsonObject(choice['delta']) ? choice['delta'] : choice['message'];
    if (!isJsonObject(part)) continue;
    text += str(part['content']);
    addCalls(part['tool_calls']);
  }
  return { text, toolCalls: [...calls.values()].filter((c) => c.name !== '') };
}

function responsesOutput(output: readonly unknown[]): ReadAnswer {
  let text = '';
  const toolCalls: AnswerToolCall[] = [];
  for (const item of output) {
    if (!isJsonObject(item)) continue;
    if (item['type'] === 'message' && Array.isArray(item['content'])) {
      for (const part of item['content']) if (isJsonObject(part)) text += str(part['text']);
    } else if (item['type'] === 'function_call') {
      toolCalls.push({
        id: str(item['call_id']),
        name: str(item['name']),
        arguments: argumentText(item['arguments']),
      });
    }
  }
  return { text, toolCalls };
}

function responsesAnswer(events: readonly Json[]): ReadAnswer {
  const done: unknown[] = [];
  for (const event of events) {
    const response = event['response'];
    if (event['type'] === 'response.completed' && isJsonObject(response) && Array.isArray(response['output']))
      return responsesOutput(response['output']);
    if (event['type'] === 'response.output_item.done') done.push(event['item']);
    // A plain (not streamed) answer is the response object itself.
    if (event['object'] === 'response' && Array.isArray(event['output']))
      return responsesOutput(event['output']);
  }
  return responsesOutput(done);
}

function messagesAnswer(events: readonly Json[]): ReadAnswer {
  const blocks = new Map<number, { type: string; text: string; id: string; name: string; json: string }>();
  for (const event of events) {
    // A plain answer: the message with its content blocks.
    if (event['type'] === 'message' && Array.isArray(event['content'])) {
      event['content'].forEach((block, index) => {
        if (!isJsonObject(block)) return;
        blocks.set(index, {
          type: str(block['type']),
          text: str(block['text']),
          id: str(block['id']),
          name: str(block['name']),
          json: block['input'] === undefined ? '' : JSON.stringify(block['input']),
        });
      });
      continue;
    }
    const index = typeof event['index'] === 'number' ? event['index'] : 0;
    if (event['type'] === 'content_block_start' && isJsonObject(event['content_block'])) {
      const block = event['content_block'];
      blocks.set(index, {
        type: str(block['type']),
        text: str(block['text']),
        id: str(block['id']),
        name: str(block['name']),
        json: '',
      });
    } else if (event['type'] === 'content_block_delta' && isJsonObject(event['delta'])) {
      const block = blocks.get(index);
      if (block === undefined) continue;
      block.text += str(event['delta']['text']);
      block.json += str(event['delta']['partial_json']);
    }
  }
  let text = '';
  const toolCalls: AnswerToolCall[] = [];
  for (const block of [...blocks.entries()].sort((a, b) => a[0] - b[0]).map(([, b]) => b)) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'tool_use')
      toolCalls.push({ id: block.id, name: block.name, arguments: block.json === '' ? '{}' : block.json });
  }
  return { text, toolCalls };
}

function completionsAnswer(events: readonly Json[]): ReadAnswer {
  let text = '';
  for (const event of events) {
    const choice = Array.isArray(event['choices']) ? event['choices'][0] : undefined;
    if (isJsonObject(choice)) text += str(choice['text']);
  }
  return { text, toolCalls: [] };
}

/** The answer in `body` (the whole response body, as received) of a request in protocol `api`. */
export function readAnswer(api: AgentApi, body: string): ReadAnswer {
  const events = documents(body);
  switch (api) {
    case 'chat':
      return chatAnswer(events);
    case 'responses':
      return responsesAnswer(events);
    case 'messages':
      return messagesAnswer(events);
    case 'completions':
      return completionsAnswer(events);
  }
}
