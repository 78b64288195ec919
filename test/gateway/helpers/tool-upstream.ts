// A scripted upstream that answers with tool calls in each protocol's own wire form, streamed or not, so an agent
// loop can run through the gateway with the official SDKs: OpenAI chat (`tool_calls` deltas by index, the
// arguments in pieces, `finish_reason: tool_calls`), Responses (`function_call` output items and their argument
// deltas), Anthropic Messages (`tool_use` blocks with `input_json_delta`, `stop_reason: tool_use`). The header
// `x-test-tool-calls: N` asks for N parallel calls (none: a text answer). Responses answers are numbered
// `resp_1`, `resp_2`, ... in the order they are sent.
import type { ServerResponse } from 'node:http';
import { startUpstream, type TestUpstream } from './upstream.js';

export const TOOL_NAME = 'get_weather';
const ARGUMENT_PIECES = ['{"city":', '"Par', 'is"}'];

export async function startToolUpstream(): Promise<TestUpstream> {
  let responses = 0;
  return startUpstream((req, res, body) => {
    const calls = Number(req.headers['x-test-tool-calls'] ?? 0);
    const streamed = (JSON.parse(body.toString('utf8')) as { stream?: boolean }).stream === true;
    const path = req.url ?? '';
    if (path.endsWith('/chat/completions')) chat(res, calls, streamed);
    else if (path.endsWith('/messages')) messages(res, calls, streamed);
    else if (path.endsWith('/responses')) {
      responses++;
      responsesAnswer(res, calls, streamed, `resp_${responses}`);
    } else {
      res.writeHead(404).end();
    }
  });
}

function sse(res: ServerResponse, events: readonly string[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(events.join(''));
}

function json(res: ServerResponse, value: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function data(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

function named(event: string, value: Record<string, unknown>): string {
  return `event: ${event}\ndata: ${JSON.stringify({ type: event, ...value })}\n\n`;
}

function chat(res: ServerResponse, calls: number, streamed: boolean): void {
  const finish = calls > 0 ? 'tool_calls' : 'stop';
  const usage = { prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 };
  if (!streamed) {
    const toolCalls = Array.from({ length: calls }, (_, i) => ({
      id: `call_${i}`,
      type: 'function',
      function: { name: TOOL_NAME, arguments: ARGUMENT_PIECES.join('') },
    }));
    const message = {
      role: 'assistant',
      content: calls > 0 ? null : 'Sunny.',
      ...(calls > 0 ? { tool_calls: toolCalls } : {}),
    };
    json(res, {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [{ index: 0, message, finish_reason: finish }],
      usage,
    });
    return;
  }
  const chunk = (delta: unknown, finishReason: string | null = null, extra: object = {}) =>
    data({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta, finish_reason: finishReason }],
      ...extra,
    });
  const events = [chunk({ role: 'assistant', content: null })];
  if (calls === 0) events.push(chunk({ content: 'Sunny.' }));
  for (let i = 0; i < calls; i++) {
    events.push(
      chunk({
        tool_calls: [
          { index: i, id: `call_${i}`, type: 'function', function: { name: TOOL_NAME, arguments: '' } },
        ],
      }),
    );
    for (const piece of ARGUMENT_PIECES)
      events.push(chunk({ tool_calls: [{ index: i, function: { arguments: piece } }] }));
  }
  events.push(chunk({}, finish));
  events.push(
    data({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage }),
  );
  events.push('data: [DONE]\n\n');
  sse(res, events);
}

function messages(res: ServerResponse, calls: number, streamed: boolean): void {
  const stop = calls > 0 ? 'tool_use' : 'end_turn';
  const blocks =
    calls > 0
      ? Array.from({ length: calls }, (_, i) => ({
          type: 'tool_use',
          id: `toolu_${i}`,
          name: TOOL_NAME,
          input: { city: 'Paris' },
        }))
      : [{ type: 'text', text: 'Sunny.' }];
  const message = { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', stop_sequence: null };
  if (!streamed) {
    json(res, {
      ...message,
      content: blocks,
      stop_reason: stop,
      usage: { input_tokens: 20, output_tokens: 8 },
    });
    return;
  }
  const events = [
    named('message_start', {
      message: { ...message, content: [], stop_reason: null, usage: { input_tokens: 20, output_tokens: 1 } },
    }),
  ];
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      events.push(named('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      events.push(named('content_block_delta', { index, delta: { type: 'text_delta', text: 'Sunny.' } }));
    } else {
      events.push(named('content_block_start', { index, content_block: { ...block, input: {} } }));
      for (const piece of ARGUMENT_PIECES)
        events.push(
          named('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }),
        );
    }
    events.push(named('content_block_stop', { index }));
  });
  events.push(
    named('message_delta', {
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: 8 },
    }),
  );
  events.push(named('message_stop', {}));
  sse(res, events);
}

function responsesAnswer(res: ServerResponse, calls: number, streamed: boolean, id: string): void {
  const items =
    calls > 0
      ? Array.from({ length: calls }, (_, i) => ({
          type: 'function_call',
          id: `fc_${i}`,
          call_id: `call_${i}`,
          name: TOOL_NAME,
          arguments: ARGUMENT_PIECES.join(''),
          status: 'completed',
        }))
      : [
          {
            type: 'message',
            id: 'msg_1',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'Sunny.', annotations: [] }],
          },
        ];
  const response = {
    id,
    object: 'response',
    created_at: 1,
    model: 'm',
    status: 'completed',
    output: items,
    usage: { input_tokens: 20, output_tokens: 8, total_tokens: 28 },
  };
  if (!streamed) {
    json(res, response);
    return;
  }
  const events = [
    named('response.created', { response: { ...response, status: 'in_progress', output: [] } }),
  ];
  items.forEach((item, output_index) => {
    if (item.type === 'function_call') {
      events.push(
        named('response.output_item.added', {
          output_index,
          item: { ...item, arguments: '', status: 'in_progress' },
        }),
      );
      for (const delta of ARGUMENT_PIECES)
        events.push(
          named('response.function_call_arguments.delta', { item_id: item.id, output_index, delta }),
        );
      events.push(
        named('response.function_call_arguments.done', {
          item_id: item.id,
          output_index,
          arguments: ARGUMENT_PIECES.join(''),
        }),
      );
    } else {
      events.push(named('response.output_item.added', { output_index, item: { ...item, content: [] } }));
      events.push(
        named('response.output_text.delta', {
          item_id: item.id,
          output_index,
          content_index: 0,
          delta: 'Sunny.',
        }),
      );
    }
    events.push(named('response.output_item.done', { output_index, item }));
  });
  events.push(named('response.completed', { response }));
  sse(res, events);
}
