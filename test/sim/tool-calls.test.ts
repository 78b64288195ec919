// Tool calls on the wire, per protocol, streamed and not, as the real APIs write them: chat's tool_calls deltas
// (index, id and name first, then the arguments in pieces, finish_reason tool_calls), Responses' function_call
// item with its argument delta events, Anthropic's tool_use block with input_json_delta pieces and stop_reason
// tool_use. The arguments validate against the tool's schema; usage equals the ground truth (the name one token,
// the arguments under the built-in rule); the streamed and the non-streamed answer to one request are the same
// call. And the decision: tool_choice none, auto (the rate), required, a named tool; the cap of tool turns; a call
// that does not fit max_tokens becomes text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request } from 'undici';
import { estimateTokens } from '../../src/shared/token-estimate.js';
import type { RunningSimulator, SimOptions } from '../../src/sim/index.js';
import { type CapturedStream, payloads, postAndCapture } from '../helpers/sse-capture.js';
import { anthropicTools, chatTools, responsesTools, schemaErrors } from './helpers/agent-tools.js';
import { withSim } from './helpers/with-sim.js';

type Json = Record<string, unknown>;
const MODEL = 'tokenmeter/sim-7b';
const TIMING = { ttftMs: 2, itlMs: 0.5, prefillMsPerToken: 0, jitter: 0 };
const ALWAYS: SimOptions = { timing: TIMING, tools: { callRate: 1, maxToolTurns: 3 } };

function jsonEvents(stream: CapturedStream): Json[] {
  return payloads(stream).filter((p): p is Json => p !== '[DONE]');
}

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, body: (await res.body.json()) as Json };
}

/** The truth's token count for a call: its name as one token and its arguments under the built-in rule. */
function callTokens(args: string): number {
  return 1 + estimateTokens(args);
}

function assertValidCall(name: string, args: string): void {
  assert.match(name, /^(get_weather|read_file)$/);
  assert.equal(schemaErrors(name, JSON.parse(args)), '', `arguments ${args}`);
}

const chatBody = (extra: Json = {}) => ({
  model: MODEL,
  messages: [{ role: 'user', content: "What's the weather in Paris?" }],
  max_tokens: 400,
  tools: chatTools(),
  ...extra,
});

test('chat: tool_calls deltas (index, id, name, then argument pieces), finish_reason tool_calls; the same call unstreamed', async () => {
  await withSim(ALWAYS, async (sim) => {
    const stream = await postAndCapture(
      `${sim.url}/v1/chat/completions`,
      chatBody({ stream: true, stream_options: { include_usage: true } }),
      { 'x-request-id': 'chat-tool' },
    );
    const events = jsonEvents(stream);
    const choices = events.flatMap((e) => e['choices'] as Json[]);
    const deltas = choices.map((c) => c['delta'] as Json);
    assert.deepEqual(deltas[0], { role: 'assistant', content: '' });
    const calls = deltas
      .filter((d) => d['tool_calls'] !== undefined)
      .map((d) => (d['tool_calls'] as Json[])[0] as Json);
    const first = calls[0] as Json;
    assert.equal(first['index'], 0);
    assert.match(first['id'] as string, /^call_[A-Za-z0-9]{24}$/);
    assert.equal(first['type'], 'function');
    const name = (first['function'] as Json)['name'] as string;
    for (const later of calls.slice(1)) {
      assert.deepEqual(Object.keys(later), ['index', 'function']);
      assert.deepEqual(Object.keys(later['function'] as Json), ['arguments']);
    }
    const args = calls.map((c) => (c['function'] as Json)['arguments']).join('');
    assertValidCall(name, args);
    assert.equal(choices.at(-1)?.['finish_reason'], 'tool_calls');
    const truth = sim.truth('chat-tool');
    assert.equal(truth?.finishReason, 'tool_calls');
    assert.equal(truth?.toolCall, name);
    assert.equal(truth?.completionTokens, callTokens(args));
    assert.equal(calls.length, truth?.contentChunkEmittedAtMs.length, 'one content event a chunk');
    const usage = events.at(-1)?.['usage'] as Json;
    assert.equal(usage['completion_tokens'], truth?.completionTokens);

    const plain = await postJson(`${sim.url}/v1/chat/completions`, chatBody());
    const choice = (plain.body['choices'] as Json[])[0] as Json;
    const message = choice['message'] as Json;
    assert.equal(choice['finish_reason'], 'tool_calls');
    assert.equal(message['content'], null);
    const call = (message['tool_calls'] as Json[])[0] as Json;
    assert.equal(call['id'], first['id'], 'same request, same call');
    assert.deepEqual(call['function'], { name, arguments: args });
    assert.equal((plain.body['usage'] as Json)['completion_tokens'], callTokens(args));
  });
});

test('Anthropic: a tool_use block, input_json_delta pieces, stop_reason tool_use; the same call unstreamed', async () => {
  await withSim(ALWAYS, async (sim) => {
    const body = {
      model: MODEL,
      max_tokens: 400,
      messages: [{ role: 'user', content: "What's the weather in Paris?" }],
      tools: anthropicTools(),
    };
    const stream = await postAndCapture(
      `${sim.url}/v1/messages`,
      { ...body, stream: true },
      { 'x-request-id': 'a-tool' },
    );
    const events = jsonEvents(stream);
    const kinds = events.map((e) => {
      const block = e['content_block'] as Json | undefined;
      const delta = e['delta'] as Json | undefined;
      return `${e['type']}${block ? `:${block['type']}` : ''}${delta?.['type'] ? `:${delta['type']}` : ''}`;
    });
    const pieces = events.filter((e) => (e['delta'] as Json | undefined)?.['type'] === 'input_json_delta');
    assert.deepEqual(kinds, [
      'message_start',
      'ping',
      'content_block_start:tool_use',
      ...pieces.map(() => 'content_block_delta:input_json_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const block = events[2]?.['content_block'] as Json;
    assert.match(block['id'] as string, /^toolu_/);
    assert.deepEqual(block['input'], {});
    assert.ok(pieces.every((e) => e['index'] === 0));
    const args = pieces.map((e) => (e['delta'] as Json)['partial_json']).join('');
    assertValidCall(block['name'] as string, args);
    const messageDelta = events.at(-2) as Json;
    assert.equal((messageDelta['delta'] as Json)['stop_reason'], 'tool_use');
    const truth = sim.truth('a-tool');
    assert.equal((messageDelta['usage'] as Json)['output_tokens'], truth?.completionTokens);
    assert.equal(truth?.completionTokens, callTokens(args));
    assert.equal(pieces.length, truth?.contentChunkEmittedAtMs.length);

    const plain = await postJson(`${sim.url}/v1/messages`, body);
    assert.equal(plain.body['stop_reason'], 'tool_use');
    const content = plain.body['content'] as Json[];
    assert.equal(content.length, 1);
    assert.deepEqual(content[0], {
      type: 'tool_use',
      id: block['id'],
      name: block['name'],
      input: JSON.parse(args),
    });
  });
});

test('Responses: a function_call item, argument delta and done events, response.completed with it; the same call unstreamed', async () => {
  await withSim(ALWAYS, async (sim) => {
    const body = {
      model: MODEL,
      input: "What's the weather in Paris?",
      tools: responsesTools(),
      max_output_tokens: 400,
    };
    const stream = await postAndCapture(
      `${sim.url}/v1/responses`,
      { ...body, stream: true },
      { 'x-request-id': 'r-tool' },
    );
    const events = jsonEvents(stream);
    assert.deepEqual(
      events.map((e) => e['sequence_number']),
      events.map((_, i) => i),
    );
    const types = events.map((e) => e['type'] as string);
    const deltas = events.filter((e) => e['type'] === 'response.function_call_arguments.delta');
    assert.deepEqual(types, [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      ...deltas.map(() => 'response.function_call_arguments.delta'),
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const added = events[2]?.['item'] as Json;
    assert.equal(added['type'], 'function_call');
    assert.equal(added['arguments'], '');
    assert.match(added['call_id'] as string, /^call_/);
    const args = deltas.map((e) => e['delta']).join('');
    assertValidCall(added['name'] as string, args);
    assert.ok(deltas.every((e) => e['item_id'] === added['id'] && e['output_index'] === 0));
    const done = events.at(-3) as Json;
    assert.equal(done['arguments'], args);
    const completed = events.at(-1)?.['response'] as Json;
    const output = completed['output'] as Json[];
    assert.deepEqual(output, [{ ...added, status: 'completed', arguments: args }]);
    const truth = sim.truth('r-tool');
    assert.equal((completed['usage'] as Json)['output_tokens'], truth?.completionTokens);
    assert.equal(truth?.completionTokens, callTokens(args));
    assert.equal(deltas.length, truth?.contentChunkEmittedAtMs.length);

    const plain = await postJson(`${sim.url}/v1/responses`, body);
    assert.deepEqual(plain.body['output'], output);
  });
});

/** What a chat request gets: the called tool's name, or null for a text answer. */
async function calledTool(sim: RunningSimulator, extra: Json): Promise<string | null> {
  const { status, body } = await postJson(`${sim.url}/v1/chat/completions`, chatBody(extra));
  assert.equal(status, 200, JSON.stringify(body));
  const message = ((body['choices'] as Json[])[0] as Json)['message'] as Json;
  const calls = message['tool_calls'] as Json[];
  return calls.length === 0 ? null : (((calls[0] as Json)['function'] as Json)['name'] as string);
}

test('tool_choice: none never calls, required and a named tool always do, auto follows --tool-call-rate', async () => {
  await withSim(ALWAYS, async (sim) => {
    assert.equal(await calledTool(sim, { tool_choice: 'none' }), null);
    const named = { type: 'function', function: { name: 'read_file' } };
    for (let i = 0; i < 5; i++) {
      assert.equal(
        await calledTool(sim, { tool_choice: named, messages: [{ role: 'user', content: `q${i}` }] }),
        'read_file',
      );
    }
    const refused = await postJson(
      `${sim.url}/v1/chat/completions`,
      chatBody({ tool_choice: { type: 'function', function: { name: 'nope' } } }),
    );
    assert.equal(refused.status, 400);
    assert.match(JSON.stringify(refused.body), /names the tool \\"nope\\"/);
  });
  await withSim({ ...ALWAYS, tools: { callRate: 0, maxToolTurns: 3 } }, async (sim) => {
    assert.equal(await calledTool(sim, {}), null);
    assert.notEqual(await calledTool(sim, { tool_choice: 'required' }), null);
  });
  await withSim({ ...ALWAYS, tools: { callRate: 0.5, maxToolTurns: 3 } }, async (sim) => {
    let calls = 0;
    const asked = 200;
    for (let i = 0; i < asked; i++) {
      if ((await calledTool(sim, { messages: [{ role: 'user', content: `question ${i}` }] })) !== null)
        calls++;
    }
    // Binomial(200, 0.5): 4.3 standard deviations either side.
    assert.ok(calls > 70 && calls < 130, `${calls} of ${asked} called a tool at rate 0.5`);
  });
});

test('the cap: a conversation with --max-tool-turns tool turns gets text, even with tool_choice required', async () => {
  await withSim({ timing: TIMING, tools: { callRate: 1, maxToolTurns: 2 } }, async (sim) => {
    const turn = (i: number) => [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: `call_${i}`, type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } },
        ],
      },
      { role: 'tool', tool_call_id: `call_${i}`, content: 'file contents' },
    ];
    const user = { role: 'user', content: 'Read a.' };
    assert.notEqual(
      await calledTool(sim, { messages: [user, ...turn(1)] }),
      null,
      'one tool turn: below the cap',
    );
    assert.equal(await calledTool(sim, { messages: [user, ...turn(1), ...turn(2)] }), null);
    assert.equal(
      await calledTool(sim, { messages: [user, ...turn(1), ...turn(2)], tool_choice: 'required' }),
      null,
    );
  });
});

test('a tool call that does not fit max_tokens is not made: the answer is text', async () => {
  await withSim(ALWAYS, async (sim) => {
    assert.equal(await calledTool(sim, { max_tokens: 5 }), null);
  });
});

test('reasoning, then the tool call: chat deltas in order, Anthropic tool_use at index 1, Responses function_call at output_index 1', async () => {
  await withSim({ ...ALWAYS, reasoning: { tokens: 3 } }, async (sim) => {
    const chat = jsonEvents(
      await postAndCapture(
        `${sim.url}/v1/chat/completions`,
        chatBody({ stream: true, stream_options: { include_usage: true } }),
        { 'x-request-id': 'chat-think-tool' },
      ),
    );
    const deltas = chat.flatMap((e) => (e['choices'] as Json[]).map((c) => c['delta'] as Json));
    const kinds = deltas.map((d) => Object.keys(d).join('+'));
    const calls = kinds.filter((k) => k === 'tool_calls').length;
    assert.deepEqual(kinds, [
      'role+content',
      'reasoning',
      'reasoning',
      'reasoning',
      ...Array.from({ length: calls }, () => 'tool_calls'),
      '',
    ]);
    const usage = chat.at(-1)?.['usage'] as Json;
    assert.equal((usage['completion_tokens_details'] as Json)['reasoning_tokens'], 3);
    const truth = sim.truth('chat-think-tool');
    // One token a chunk, except the call's first: its name and its first arguments piece.
    assert.deepEqual(truth?.tokensPerChunk.slice(0, 5), [1, 1, 1, 2, 1]);

    const anthropic = jsonEvents(
      await postAndCapture(`${sim.url}/v1/messages`, {
        model: MODEL,
        max_tokens: 400,
        stream: true,
        messages: [{ role: 'user', content: "What's the weather in Paris?" }],
        tools: anthropicTools(),
      }),
    );
    const events = anthropic.map((e) => {
      const block = e['content_block'] as Json | undefined;
      const delta = e['delta'] as Json | undefined;
      return `${e['type']}${block ? `:${block['type']}` : ''}${delta?.['type'] ? `:${delta['type']}` : ''}@${e['index'] ?? ''}`;
    });
    const pieces = events.filter((k) => k.startsWith('content_block_delta:input_json_delta')).length;
    assert.deepEqual(events, [
      'message_start@',
      'content_block_start:thinking@0',
      'ping@',
      'content_block_delta:thinking_delta@0',
      'content_block_delta:thinking_delta@0',
      'content_block_delta:thinking_delta@0',
      'content_block_delta:signature_delta@0',
      'content_block_stop@0',
      'content_block_start:tool_use@1',
      ...Array.from({ length: pieces }, () => 'content_block_delta:input_json_delta@1'),
      'content_block_stop@1',
      'message_delta@',
      'message_stop@',
    ]);

    const responses = jsonEvents(
      await postAndCapture(`${sim.url}/v1/responses`, {
        model: MODEL,
        input: "What's the weather in Paris?",
        tools: responsesTools(),
        stream: true,
      }),
    );
    const added = responses.filter((e) => e['type'] === 'response.output_item.added');
    assert.deepEqual(
      added.map((e) => [e['output_index'], (e['item'] as Json)['type']]),
      [
        [0, 'reasoning'],
        [1, 'function_call'],
      ],
    );
    const firstArgs = responses.findIndex((e) => e['type'] === 'response.function_call_arguments.delta');
    const reasoningDone = responses.findIndex((e) => e['type'] === 'response.output_item.done');
    assert.ok(reasoningDone < firstArgs, 'the reasoning item closes before the call opens');
    const output = ((responses.at(-1) as Json)['response'] as Json)['output'] as Json[];
    assert.deepEqual(
      output.map((item) => item['type']),
      ['reasoning', 'function_call'],
    );
  });
});
