// Sessions captured by the gateway (docs/metrics.md, "Sessions"): the official `openai` and `@anthropic-ai/sdk`
// clients run a three-turn tool loop through the gateway in each protocol (chat with `role: tool` history,
// Responses with `previous_response_id` and with its whole history resent, Anthropic messages with
// `tool_use`/`tool_result`) against a scripted upstream that answers with tool calls (helpers/tool-upstream.ts):
// every request is recorded with one session id and turns 0, 1, 2, the wait before each turn, the tool calls
// asked and the tool results sent. Then the ids clients send (Claude Code's and Codex's headers, Claude Code's
// metadata.user_id, prompt_cache_key), prefix chaining without any id (Cline's case), two conversations
// interleaved, and session headers that are garbage.
//
// The wait: the test notes, on the gateway's clock (same process), when its SDK call returned the previous answer
// and when it sent the next request; the gateway's wait must be that plus the two loopback hops around it, each
// measured from the records (the previous answer's end, this request's arrival), to the records' microsecond. The
// hops themselves are not bounded: on a loaded machine they were seen up to 75 ms (the SDK preparing a request).
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { request } from 'undici';
import type { RequestRecord } from '../../src/gateway/records/record.js';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import { startToolUpstream, TOOL_NAME } from './helpers/tool-upstream.js';
import type { TestUpstream } from './helpers/upstream.js';

/** Records round times to the microsecond. */
const ROUNDING_MS = 0.002;
const MODEL = 'm';
/** The test's think time before turns 1 and 2, and the tool calls each turn's answer asks for. */
const WAITS_MS = [0, 120, 60];
const CALLS = [1, 2, 0];

let upstream: TestUpstream;
let gateway: TestGateway;

before(async () => {
  upstream = await startToolUpstream();
  gateway = await startGateway({ upstreams: [{ name: 'tools', baseUrl: upstream.url, keyless: true }] });
});
after(async () => {
  await gateway.close();
  await upstream.close();
});

/** The records of requests whose header `x-test-tag` was `tag`, in order of arrival. */
async function recordsTagged(tag: string, count: number): Promise<RequestRecord[]> {
  const ids = upstream.requests
    .filter((r) => r.headers['x-test-tag'] === tag)
    .map((r) => r.headers['x-request-id']);
  assert.equal(ids.length, count, `${count} requests tagged ${tag} reached the upstream`);
  for (;;) {
    const found = gateway.records.filter((r) => ids.includes(r.requestId));
    if (found.length === count)
      return found.sort((a, b) => a.receivedAtMonotonicMs - b.receivedAtMonotonicMs);
    await gateway.recordsAfter(gateway.records.length + 1);
  }
}

/** When each turn was sent and when its SDK call returned the answer (performance.now(), the gateway's clock). */
interface ClientTimes {
  readonly sentAt: number[];
  readonly answeredAt: number[];
}

/** Runs `turn` three times, the test's think time between, noting when the client sent each and got its answer. */
async function threeTurns(turn: (index: number) => Promise<void>): Promise<ClientTimes> {
  const times: ClientTimes = { sentAt: [], answeredAt: [] };
  for (let i = 0; i < 3; i++) {
    if (i > 0) await sleep(WAITS_MS[i]);
    times.sentAt.push(performance.now());
    await turn(i);
    times.answeredAt.push(performance.now());
  }
  return times;
}

function assertOneSession(
  records: readonly RequestRecord[],
  client: ClientTimes,
  toolResults: readonly number[],
  sources: readonly string[],
): void {
  const sessionId = records[0]?.sessionId;
  assert.ok(typeof sessionId === 'string' && sessionId !== '', 'a session id');
  records.forEach((record, i) => {
    assert.equal(record.outcome, 'ok');
    assert.equal(record.sessionId, sessionId, `turn ${i} in the session`);
    assert.equal(record.turn, i);
    assert.equal(record.sessionSource, sources[i]);
    assert.equal(record.toolCalls, CALLS[i], `tool calls asked in turn ${i}`);
    assert.equal(record.toolResults, toolResults[i], `tool results sent in turn ${i}`);
    const previous = records[i - 1];
    if (previous === undefined) {
      assert.equal(record.waitBeforeMs, null);
      return;
    }
    const wait = record.waitBeforeMs;
    assert.ok(typeof wait === 'number', `turn ${i} has its wait`);
    // The gateway's wait runs from the previous answer's end to this arrival, so it holds the client's own
    // (answer read to next request sent) plus the two loopback hops around it: the answer's last bytes on their
    // way to the client, and this request on its way to the gateway.
    const clientWait = (client.sentAt[i] as number) - (client.answeredAt[i - 1] as number);
    const answerHop =
      (client.answeredAt[i - 1] as number) - (previous.receivedAtMonotonicMs + previous.e2eMs);
    const requestHop = record.receivedAtMonotonicMs - (client.sentAt[i] as number);
    const seen = `turn ${i}: the gateway saw a ${wait} ms wait; the client waited ${clientWait.toFixed(3)} ms, the hops took ${answerHop.toFixed(3)} and ${requestHop.toFixed(3)} ms`;
    assert.ok(answerHop >= -ROUNDING_MS && requestHop >= -ROUNDING_MS, seen);
    assert.ok(Math.abs(wait - (clientWait + answerHop + requestHop)) <= ROUNDING_MS, seen);
  });
}

const FUNCTION_PARAMETERS = {
  type: 'object' as const,
  properties: { city: { type: 'string' } },
  required: ['city'],
};

test('openai SDK, chat with tools streamed: three turns with role: tool history in one session', async () => {
  const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'k', maxRetries: 0 });
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You answer about the weather.' },
    { role: 'user', content: 'Weather in Paris?' },
  ];
  const times = await threeTurns(async (i) => {
    const stream = await client.chat.completions.create(
      {
        model: MODEL,
        messages,
        tools: [{ type: 'function', function: { name: TOOL_NAME, parameters: FUNCTION_PARAMETERS } }],
        stream: true,
      },
      { headers: { 'x-test-tool-calls': String(CALLS[i]), 'x-test-tag': 'chat-loop' } },
    );
    const calls = new Map<number, { id: string; name: string; arguments: string }>();
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        const known = calls.get(call.index) ?? { id: '', name: '', arguments: '' };
        calls.set(call.index, {
          id: call.id ?? known.id,
          name: call.function?.name ?? known.name,
          arguments: known.arguments + (call.function?.arguments ?? ''),
        });
      }
    }
    assert.equal(calls.size, CALLS[i], 'the SDK saw the tool calls');
    if (calls.size === 0) return;
    const toolCalls = [...calls.values()].map((c) => ({
      id: c.id,
      type: 'function' as const,
      function: { name: c.name, arguments: c.arguments },
    }));
    messages.push({ role: 'assistant', content: null, tool_calls: toolCalls });
    for (const call of toolCalls) messages.push({ role: 'tool', tool_call_id: call.id, content: '18 C' });
  });
  assertOneSession(await recordsTagged('chat-loop', 3), times, [0, 1, 2], ['prefix', 'prefix', 'prefix']);
});

test('openai SDK, Responses streamed: three turns chained by previous_response_id with function_call_output', async () => {
  const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'k', maxRetries: 0 });
  let previous: string | undefined;
  let input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Weather in Paris?' }];
  const times = await threeTurns(async (i) => {
    const stream = await client.responses.create(
      {
        model: MODEL,
        input,
        tools: [{ type: 'function', name: TOOL_NAME, parameters: FUNCTION_PARAMETERS, strict: true }],
        stream: true,
        ...(previous === undefined ? {} : { previous_response_id: previous }),
      },
      { headers: { 'x-test-tool-calls': String(CALLS[i]), 'x-test-tag': 'responses-loop' } },
    );
    const calls: string[] = [];
    for await (const event of stream) {
      if (event.type === 'response.output_item.done' && event.item.type === 'function_call')
        calls.push(event.item.call_id);
      if (event.type === 'response.completed') previous = event.response.id;
    }
    assert.equal(calls.length, CALLS[i], 'the SDK saw the function calls');
    input = calls.map((call_id) => ({ type: 'function_call_output', call_id, output: '18 C' }));
  });
  assertOneSession(
    await recordsTagged('responses-loop', 3),
    times,
    [0, 1, 2],
    ['prefix', 'previous-response-id', 'previous-response-id'],
  );
});

test('openai SDK, Responses not streamed, whole history resent (store: false): three turns by prefix', async () => {
  const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'k', maxRetries: 0 });
  const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Weather in Lyon?' }];
  const times = await threeTurns(async (i) => {
    const response = await client.responses.create(
      {
        model: MODEL,
        input,
        store: false,
        tools: [{ type: 'function', name: TOOL_NAME, parameters: FUNCTION_PARAMETERS, strict: true }],
      },
      { headers: { 'x-test-tool-calls': String(CALLS[i]), 'x-test-tag': 'responses-history' } },
    );
    const calls = response.output.filter((item) => item.type === 'function_call');
    assert.equal(calls.length, CALLS[i]);
    // As Codex keeps its history: the answer's items, then the outputs of its calls.
    input.push(...calls);
    for (const call of calls)
      input.push({ type: 'function_call_output', call_id: call.call_id, output: '18 C' });
  });
  assertOneSession(
    await recordsTagged('responses-history', 3),
    times,
    [0, 1, 2],
    ['prefix', 'prefix', 'prefix'],
  );
});

test('anthropic SDK, messages.stream with tools: three turns with tool_use / tool_result history', async () => {
  const client = new Anthropic({ baseURL: gateway.url, apiKey: 'k', maxRetries: 0 });
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
  const times = await threeTurns(async (i) => {
    const final = await client.messages
      .stream(
        {
          model: MODEL,
          max_tokens: 64,
          system: 'You answer about the weather.',
          messages,
          tools: [{ name: TOOL_NAME, input_schema: FUNCTION_PARAMETERS }],
        },
        { headers: { 'x-test-tool-calls': String(CALLS[i]), 'x-test-tag': 'anthropic-loop' } },
      )
      .finalMessage();
    const uses = final.content.filter((block) => block.type === 'tool_use');
    assert.equal(uses.length, CALLS[i], 'the SDK saw the tool_use blocks');
    assert.deepEqual(uses[0]?.input ?? { city: 'Paris' }, { city: 'Paris' });
    if (uses.length === 0) return;
    messages.push({ role: 'assistant', content: final.content });
    messages.push({
      role: 'user',
      content: uses.map((use) => ({ type: 'tool_result' as const, tool_use_id: use.id, content: '18 C' })),
    });
  });
  assertOneSession(
    await recordsTagged('anthropic-loop', 3),
    times,
    [0, 1, 2],
    ['prefix', 'prefix', 'prefix'],
  );
});

/** Posts `body` to the gateway's `path` with `headers`; returns the status after reading the whole answer. */
async function post(path: string, body: unknown, headers: Record<string, string>): Promise<number> {
  const response = await request(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  await response.body.text();
  return response.statusCode;
}

test("the ids clients send name the session: Claude Code's and Codex's headers, metadata.user_id, prompt_cache_key", async () => {
  const claude = 'f3a1c2d4-5b6e-4f70-8a9b-0c1d2e3f4a5b';
  const codex = '0199a0b1-c2d3-7e4f-8a5b-6c7d8e9f0a1b';
  const embedded = '7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a';
  const cacheKey = 'conversation-42';
  // Each request alone, the same one-message body every time: only the id can join them.
  const messagesBody = {
    model: MODEL,
    max_tokens: 8,
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
  };
  const cases = [
    {
      tag: 'claude-header',
      path: '/v1/messages',
      body: messagesBody,
      headers: { 'x-claude-code-session-id': claude },
      id: claude,
      source: 'claude-code-header',
    },
    {
      tag: 'codex-header',
      path: '/v1/responses',
      body: { model: MODEL, input: 'hi', stream: true },
      headers: { 'session-id': codex, 'x-codex-window-id': 'w1' },
      id: codex,
      source: 'codex-header',
    },
    {
      tag: 'codex-underscore',
      path: '/v1/responses',
      body: { model: MODEL, input: 'hi', stream: true },
      headers: { session_id: `${codex}-u` },
      id: `${codex}-u`,
      source: 'codex-header',
    },
    {
      tag: 'metadata',
      path: '/v1/messages',
      body: { ...messagesBody, metadata: { user_id: `user_0a1b_account_2c3d_session_${embedded}` } },
      headers: {},
      id: embedded,
      source: 'metadata-user-id',
    },
    {
      tag: 'metadata-json',
      path: '/v1/messages',
      body: {
        ...messagesBody,
        metadata: { user_id: JSON.stringify({ device_id: 'd', session_id: `${embedded}-j` }) },
      },
      headers: {},
      id: `${embedded}-j`,
      source: 'metadata-user-id',
    },
    {
      tag: 'cache-key',
      path: '/v1/chat/completions',
      body: { model: MODEL, messages: [{ role: 'user', content: 'hi' }], prompt_cache_key: cacheKey },
      headers: {},
      id: cacheKey,
      source: 'prompt-cache-key',
    },
  ];
  for (const c of cases) {
    for (let i = 0; i < 3; i++)
      assert.equal(await post(c.path, c.body, { ...c.headers, 'x-test-tag': c.tag }), 200);
    const records = await recordsTagged(c.tag, 3);
    assert.deepEqual(
      records.map((r) => [r.sessionId, r.sessionSource, r.turn]),
      [0, 1, 2].map((turn) => [c.id, c.source, turn]),
      c.tag,
    );
    assert.equal(
      records[2]?.waitBeforeMs !== null && (records[2]?.waitBeforeMs ?? -1) >= 0,
      true,
      `${c.tag}: a wait`,
    );
  }
  // A plain user id names a user, not a session: two such requests are two sessions.
  const plain = { ...messagesBody, metadata: { user_id: 'user-1234' } };
  for (let i = 0; i < 2; i++) await post('/v1/messages', plain, { 'x-test-tag': 'plain-user' });
  const [first, second] = await recordsTagged('plain-user', 2);
  assert.equal(first?.sessionSource, 'prefix');
  assert.notEqual(first?.sessionId, second?.sessionId);
});

test("prefix chaining without any id (Cline's case): each request extends the last; two conversations interleaved stay apart", async () => {
  const tools = [{ type: 'function', function: { name: TOOL_NAME, parameters: FUNCTION_PARAMETERS } }];
  const conversation = (topic: string, turns: number) => {
    const messages: unknown[] = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: `Fix the ${topic} bug.` },
    ];
    for (let t = 0; t < turns; t++) {
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `c${t}`, type: 'function', function: { name: TOOL_NAME, arguments: '{}' } }],
      });
      messages.push({ role: 'tool', tool_call_id: `c${t}`, content: `result ${t}` });
    }
    return { model: MODEL, messages, tools, stream: true, stream_options: { include_usage: true } };
  };
  for (let t = 0; t < 3; t++) {
    assert.equal(
      await post('/v1/chat/completions', conversation('parser', t), { 'x-test-tag': 'cline-a' }),
      200,
    );
    assert.equal(
      await post('/v1/chat/completions', conversation('renderer', t), { 'x-test-tag': 'cline-b' }),
      200,
    );
  }
  const a = await recordsTagged('cline-a', 3);
  const b = await recordsTagged('cline-b', 3);
  for (const records of [a, b]) {
    assert.deepEqual(
      records.map((r) => [r.sessionId, r.sessionSource, r.turn, r.toolResults]),
      [
        [records[0]?.sessionId, 'prefix', 0, 0],
        [records[0]?.sessionId, 'prefix', 1, 1],
        [records[0]?.sessionId, 'prefix', 2, 1],
      ],
    );
  }
  assert.notEqual(a[0]?.sessionId, b[0]?.sessionId);
  // The same first request sent again does not extend the last one: a new session (a retry looks the same).
  assert.equal(
    await post('/v1/chat/completions', conversation('parser', 0), { 'x-test-tag': 'cline-again' }),
    200,
  );
  const [again] = await recordsTagged('cline-again', 1);
  assert.equal(again?.turn, 0);
  assert.ok(again?.sessionId !== a[0]?.sessionId && again?.sessionId !== b[0]?.sessionId);
});

/** Sends a chat request with the raw header bytes given (node:http lets latin1 through, as a client could). */
function postRawHeader(name: string, value: string, tag: string): Promise<number> {
  const url = new URL(`${gateway.url}/v1/chat/completions`);
  const body = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: `garbage ${tag}` }] });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-test-tag': tag, [name]: value },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('a session header that is garbage (too long, non-ASCII, spaces) is ignored: the request is served and placed by its body', async () => {
  const garbage = [
    ['x-claude-code-session-id', 'a'.repeat(129)],
    ['x-claude-code-session-id', 'caf\u00e9-session'],
    ['session-id', 'two words'],
    ['session-id', 'tab\there'],
  ] as const;
  for (const [i, [name, value]] of garbage.entries()) {
    assert.equal(await postRawHeader(name, value, `garbage-${i}`), 200, `${name}: ${JSON.stringify(value)}`);
    const [record] = await recordsTagged(`garbage-${i}`, 1);
    assert.equal(record?.outcome, 'ok');
    assert.equal(record?.sessionSource, 'prefix', `${name}: ${JSON.stringify(value)} ignored`);
    assert.notEqual(record?.sessionId, value);
  }
  // The longest id kept: 128 characters.
  assert.equal(await postRawHeader('x-claude-code-session-id', 'b'.repeat(128), 'longest'), 200);
  const [longest] = await recordsTagged('longest', 1);
  assert.equal(longest?.sessionId, 'b'.repeat(128));
});

test('non-streamed answers: the tool calls of a chat message and of Anthropic tool_use blocks are counted', async () => {
  const chat = { model: MODEL, messages: [{ role: 'user', content: 'two calls, chat' }] };
  const messages = {
    model: MODEL,
    max_tokens: 8,
    messages: [{ role: 'user', content: 'two calls, messages' }],
  };
  assert.equal(
    await post('/v1/chat/completions', chat, { 'x-test-tool-calls': '2', 'x-test-tag': 'json-chat' }),
    200,
  );
  assert.equal(
    await post('/v1/messages', messages, { 'x-test-tool-calls': '3', 'x-test-tag': 'json-messages' }),
    200,
  );
  const [chatRecord] = await recordsTagged('json-chat', 1);
  const [messagesRecord] = await recordsTagged('json-messages', 1);
  assert.deepEqual([chatRecord?.stream, chatRecord?.toolCalls], [false, 2]);
  assert.deepEqual([messagesRecord?.stream, messagesRecord?.toolCalls], [false, 3]);
});
