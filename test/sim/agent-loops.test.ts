// A complete agent loop per protocol with the official SDKs' streaming helpers, against the simulator and through
// the gateway in front of it: the request offers tools, the SDK parses the streamed tool call, the loop sends the
// tool's result back, and the simulator answers in text once the conversation holds --max-tool-turns tool turns.
// Each turn's arguments validate against the tool's schema; with prefix caching each turn finds the previous
// turn's prompt and tool call cached block for block, as for any turn; through the gateway every request is
// recorded `ok` with the simulator's token counts, all of a loop in one session with turns 0, 1, 2, each tool call
// and tool result counted.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { RequestRecord } from '../../src/gateway/records/record.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { anthropicTools, chatTools, responsesTools, schemaErrors } from './helpers/agent-tools.js';

const MODEL = 'tokenmeter/sim-7b';
const TOOL_TURNS = 2;
const TIMING = { ttftMs: 2, itlMs: 0.3, prefillMsPerToken: 0, jitter: 0 };
const RESULT = 'Sunny, 21 degrees, light wind from the west.';

let sim: RunningSimulator;
let gateway: TestGateway;
let sequence = 0;

before(async () => {
  sim = await startSimulator({
    timing: TIMING,
    kv: { enablePrefixCaching: true },
    tools: { callRate: 1, maxToolTurns: TOOL_TURNS },
  });
  gateway = await startGateway({ upstreams: [{ name: 'sim', baseUrl: sim.url, keyless: true }] });
});
after(async () => {
  await gateway.close();
  await sim.close();
});

interface Turn {
  readonly requestId: string;
  /** The tool called, or null for the final text answer. */
  readonly tool: string | null;
}

let loops = 0;

/** Each loop asks its own question, so no loop's first request repeats another's conversation. */
function question(): string {
  return `What's the weather in Paris? (loop ${++loops})`;
}

function nextId(name: string): string {
  return `${name}-${++sequence}`;
}

function assertValid(tool: string, args: string): void {
  assert.equal(schemaErrors(tool, JSON.parse(args)), '', `${tool} arguments ${args}`);
}

async function chatLoop(baseURL: string): Promise<Turn[]> {
  const client = new OpenAI({ baseURL, apiKey: 'unused', maxRetries: 0 });
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: question() }];
  const turns: Turn[] = [];
  for (let i = 0; i <= TOOL_TURNS + 1; i++) {
    const requestId = nextId('chat');
    const stream = client.chat.completions.stream(
      { model: MODEL, messages, tools: chatTools(), max_tokens: 300 },
      { headers: { 'x-request-id': requestId } },
    );
    const completion = await stream.finalChatCompletion();
    const choice = completion.choices[0] as OpenAI.ChatCompletion.Choice;
    const call = choice.message.tool_calls?.[0];
    if (call === undefined || call.type !== 'function') {
      assert.notEqual(choice.finish_reason, 'tool_calls');
      assert.ok((choice.message.content ?? '') !== '', 'the final answer is text');
      turns.push({ requestId, tool: null });
      return turns;
    }
    assert.equal(choice.finish_reason, 'tool_calls');
    assertValid(call.function.name, call.function.arguments);
    turns.push({ requestId, tool: call.function.name });
    messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    messages.push({ role: 'tool', tool_call_id: call.id, content: RESULT });
  }
  assert.fail('the loop did not end');
}

async function responsesLoop(baseURL: string, chained: boolean): Promise<Turn[]> {
  const client = new OpenAI({ baseURL, apiKey: 'unused', maxRetries: 0 });
  const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: question() }];
  const turns: Turn[] = [];
  let previous: string | undefined;
  let fresh: OpenAI.Responses.ResponseInputItem[] = input;
  for (let i = 0; i <= TOOL_TURNS + 1; i++) {
    const requestId = nextId(chained ? 'chained' : 'responses');
    const stream = client.responses.stream(
      {
        model: MODEL,
        input: chained ? fresh : input,
        tools: responsesTools(),
        max_output_tokens: 300,
        ...(chained && previous !== undefined ? { previous_response_id: previous } : {}),
      },
      { headers: { 'x-request-id': requestId } },
    );
    const response = await stream.finalResponse();
    previous = response.id;
    const call = response.output.find((item) => item.type === 'function_call');
    if (call === undefined) {
      assert.ok(response.output_text !== '', 'the final answer is text');
      turns.push({ requestId, tool: null });
      return turns;
    }
    assertValid(call.name, call.arguments);
    turns.push({ requestId, tool: call.name });
    const output: OpenAI.Responses.ResponseInputItem = {
      type: 'function_call_output',
      call_id: call.call_id,
      output: RESULT,
    };
    input.push(call, output);
    fresh = [output];
  }
  assert.fail('the loop did not end');
}

async function anthropicLoop(baseURL: string): Promise<Turn[]> {
  const client = new Anthropic({ baseURL, apiKey: 'unused', maxRetries: 0 });
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: question() }];
  const turns: Turn[] = [];
  for (let i = 0; i <= TOOL_TURNS + 1; i++) {
    const requestId = nextId('anthropic');
    const stream = client.messages.stream(
      { model: MODEL, max_tokens: 300, messages, tools: anthropicTools() },
      { headers: { 'x-request-id': requestId } },
    );
    const message = await stream.finalMessage();
    const use = message.content.find((block) => block.type === 'tool_use');
    if (use === undefined) {
      assert.notEqual(message.stop_reason, 'tool_use');
      assert.ok(message.content.some((block) => block.type === 'text' && block.text !== ''));
      turns.push({ requestId, tool: null });
      return turns;
    }
    assert.equal(message.stop_reason, 'tool_use');
    assertValid(use.name, JSON.stringify(use.input));
    turns.push({ requestId, tool: use.name });
    messages.push({ role: 'assistant', content: message.content });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: RESULT }] });
  }
  assert.fail('the loop did not end');
}

/** Each loop given the server's root URL: OpenAI's base URLs end in /v1, Anthropic's do not. */
const LOOPS: ReadonlyArray<[string, (root: string) => Promise<Turn[]>]> = [
  ['openai chat.completions.stream', (root) => chatLoop(`${root}/v1`)],
  ['openai responses.stream', (root) => responsesLoop(`${root}/v1`, false)],
  ['openai responses.stream with previous_response_id', (root) => responsesLoop(`${root}/v1`, true)],
  ['anthropic messages.stream', anthropicLoop],
];

for (const [name, loop] of LOOPS) {
  test(`${name}: tool call, tool result, ..., a text answer after ${TOOL_TURNS} tool turns; each turn's prompt cached`, async () => {
    const turns = await loop(sim.url);
    assert.equal(turns.length, TOOL_TURNS + 1);
    assert.ok(turns.slice(0, TOOL_TURNS).every((t) => t.tool !== null));
    assert.equal(turns.at(-1)?.tool, null);
    if (name.includes('previous_response_id')) return; // its prompts hold only the new items
    for (let i = 1; i < turns.length; i++) {
      const before = sim.truth((turns[i - 1] as Turn).requestId);
      const now = sim.truth((turns[i] as Turn).requestId);
      assert.ok(before && now);
      // The previous prompt and its tool call (name and arguments, as generated) repeat block for block.
      const context = before.promptTokens + before.completionTokens;
      assert.equal(now.cachedTokens, Math.floor(context / 16) * 16, `turn ${i}`);
    }
  });

  test(`${name}, through the gateway: every request recorded ok with the simulator's counts, one session, turns 0 to ${TOOL_TURNS}`, async () => {
    const turns = await loop(gateway.url);
    assert.equal(turns.length, TOOL_TURNS + 1);
    const records: RequestRecord[] = [];
    for (const [index, turn] of turns.entries()) {
      let record = gateway.records.find((r) => r.requestId === turn.requestId);
      while (record === undefined) {
        await gateway.recordsAfter(gateway.records.length + 1);
        record = gateway.records.find((r) => r.requestId === turn.requestId);
      }
      const truth = sim.truth(turn.requestId);
      assert.equal(record.outcome, 'ok', turn.requestId);
      assert.equal(record.outputTokens, truth?.completionTokens);
      assert.equal(record.promptTokens, truth?.promptTokens);
      assert.equal(truth?.toolCall ?? null, turn.tool);
      // The gateway's session fields (docs/metrics.md, "Sessions"): one session, its turns in order, each tool
      // call the simulator made counted, each tool result sent back counted.
      assert.equal(record.turn, index);
      assert.equal(record.toolCalls, turn.tool === null ? 0 : 1);
      assert.equal(record.toolResults, index === 0 ? 0 : 1);
      records.push(record);
    }
    assert.ok(records[0]?.sessionId, 'a session id');
    assert.ok(records.every((r) => r.sessionId === records[0]?.sessionId));
  });
}
