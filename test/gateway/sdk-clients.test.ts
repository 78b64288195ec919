// The real, unmodified `openai` and `@anthropic-ai/sdk` npm clients call the gateway in front of the simulator,
// streaming and not, with base URLs with and without /v1: they get complete answers (as many text chunks and
// tokens as the simulator says it generated, and its finish reason under each protocol's name), and the
// gateway's records carry the simulator's timings. The base URL each `tokenmeter print-config` snippet prints
// is one of the shapes tested here. Tolerances: see helpers/sim-truth.ts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { CLIENT_SNIPPETS } from '../../src/client-config/client-snippets.js';
import type { RequestRecord } from '../../src/gateway/records/record.js';
import { type RequestTruth, startSimulator } from '../../src/sim/index.js';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import { assertStreamMatchesTruth, FINISH_NAMES } from './helpers/sim-truth.js';

const MODEL = 'tokenmeter/sim-7b';
const MAX_TOKENS = 16;
const GATEWAY_KEY = 'sdk-test-gateway-key';
// Exact timing (no jitter) and answers that never end on their own, so every answer is MAX_TOKENS long.
const TIMING = { ttftMs: 150, prefillMsPerToken: 0, itlMs: 10, jitter: 0, eosMedianTokens: 100_000 };

type Sim = Awaited<ReturnType<typeof startSimulator>>;
let sim: Sim;
let gateway: TestGateway;
let sequence = 0;

before(async () => {
  sim = await startSimulator({ apiKey: 'sim-key', timing: TIMING });
  gateway = await startGateway(
    {
      upstreams: [{ name: 'sim', baseUrl: sim.url, keyEnv: 'SIM_KEY' }],
      gatewayKeys: [GATEWAY_KEY],
      records: { gaps: true },
    },
    { SIM_KEY: 'sim-key' },
  );
});
after(async () => {
  await gateway.close();
  await sim.close();
});

/** Base URLs to try: with and without /v1, both of which the gateway accepts for every client. */
function baseUrls(): string[] {
  return [`${gateway.url}/v1`, gateway.url];
}

function nextId(name: string): string {
  sequence++;
  return `sdk-${name}-${sequence}`;
}

async function recordAndTruth(id: string): Promise<{ record: RequestRecord; truth: RequestTruth }> {
  let record = gateway.records.find((r) => r.requestId === id);
  // The record is written when the response closes, which may be a moment after the SDK returned.
  while (record === undefined) {
    await gateway.recordsAfter(gateway.records.length + 1);
    record = gateway.records.find((r) => r.requestId === id);
  }
  const truth = sim.truth(id);
  assert.ok(truth, `the simulator saw ${id}`);
  assert.equal(record.outcome, 'ok');
  assert.equal(record.outputTokens, truth.completionTokens);
  return { record, truth };
}

function finishName(protocol: string, truth: RequestTruth): string | undefined {
  return FINISH_NAMES[protocol]?.[truth.finishReason ?? ''];
}

function openai(baseURL: string): OpenAI {
  return new OpenAI({ baseURL, apiKey: GATEWAY_KEY, maxRetries: 0 });
}

function anthropic(baseURL: string): Anthropic {
  return new Anthropic({ baseURL, apiKey: GATEWAY_KEY, maxRetries: 0 });
}

test('openai SDK, chat completions streamed and not, base URL with and without /v1', async (t) => {
  for (const baseURL of baseUrls()) {
    const client = openai(baseURL);
    const id = nextId('chat-stream');
    const stream = await client.chat.completions.create(
      { model: MODEL, max_tokens: MAX_TOKENS, stream: true, messages: [{ role: 'user', content: 'Hi' }] },
      { headers: { 'x-request-id': id } },
    );
    const pieces: string[] = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice?.delta.content) pieces.push(choice.delta.content);
      if (choice?.finish_reason) finish = choice.finish_reason;
    }
    const { record, truth } = await recordAndTruth(id);
    assert.equal(pieces.length, truth.contentChunkEmittedAtMs.length, 'every text chunk reached the client');
    assert.equal(finish, finishName('openai-chat', truth));
    const errors = assertStreamMatchesTruth(record, truth);
    t.diagnostic(`openai chat ${baseURL}: TTFT lag ${errors.ttftLagMs.toFixed(3)} ms`);

    const jsonId = nextId('chat-json');
    const completion = await client.chat.completions.create(
      { model: MODEL, max_tokens: MAX_TOKENS, messages: [{ role: 'user', content: 'Hi' }] },
      { headers: { 'x-request-id': jsonId } },
    );
    const json = await recordAndTruth(jsonId);
    assert.equal(completion.usage?.completion_tokens, json.truth.completionTokens);
    assert.equal(completion.choices[0]?.finish_reason, finishName('openai-chat', json.truth));
    assert.ok((completion.choices[0]?.message.content ?? '') !== '');
  }
});

test('openai SDK, responses.create streamed and not, base URL with and without /v1', async (t) => {
  for (const baseURL of baseUrls()) {
    const client = openai(baseURL);
    const id = nextId('responses-stream');
    const stream = await client.responses.create(
      { model: MODEL, max_output_tokens: MAX_TOKENS, stream: true, input: 'Hi' },
      { headers: { 'x-request-id': id } },
    );
    const pieces: string[] = [];
    let outputTokens: number | undefined;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') pieces.push(event.delta);
      if (event.type === 'response.incomplete' || event.type === 'response.completed')
        outputTokens = event.response.usage?.output_tokens;
    }
    const { record, truth } = await recordAndTruth(id);
    assert.equal(pieces.length, truth.contentChunkEmittedAtMs.length);
    assert.equal(outputTokens, truth.completionTokens);
    assert.equal(record.finishReason, finishName('openai-responses', truth));
    const errors = assertStreamMatchesTruth(record, truth);
    t.diagnostic(`openai responses ${baseURL}: TTFT lag ${errors.ttftLagMs.toFixed(3)} ms`);

    const jsonId = nextId('responses-json');
    const response = await client.responses.create(
      { model: MODEL, max_output_tokens: MAX_TOKENS, input: 'Hi' },
      { headers: { 'x-request-id': jsonId } },
    );
    const json = await recordAndTruth(jsonId);
    assert.equal(response.usage?.output_tokens, json.truth.completionTokens);
    assert.equal(response.status, json.truth.finishReason === 'length' ? 'incomplete' : 'completed');
    assert.ok(response.output_text !== '');
  }
});

test('anthropic SDK, messages.create and messages.stream, base URL with and without /v1', async (t) => {
  for (const baseURL of baseUrls()) {
    const client = anthropic(baseURL);
    const params = {
      model: MODEL,
      max_tokens: MAX_TOKENS,
      messages: [{ role: 'user' as const, content: 'Hi' }],
    };

    const jsonId = nextId('messages-json');
    const message = await client.messages.create(params, { headers: { 'x-request-id': jsonId } });
    const json = await recordAndTruth(jsonId);
    assert.equal(message.usage.output_tokens, json.truth.completionTokens);
    assert.equal(message.stop_reason, finishName('anthropic-messages', json.truth));
    const block = message.content[0];
    assert.ok(block?.type === 'text' && block.text !== '');

    const createId = nextId('messages-create-stream');
    const created = await client.messages.create(
      { ...params, stream: true },
      { headers: { 'x-request-id': createId } },
    );
    let deltas = 0;
    for await (const event of created) {
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') deltas++;
    }
    const streamedCreate = await recordAndTruth(createId);
    assert.equal(deltas, streamedCreate.truth.contentChunkEmittedAtMs.length);
    assertStreamMatchesTruth(streamedCreate.record, streamedCreate.truth);

    const id = nextId('messages-stream');
    const stream = client.messages.stream(params, { headers: { 'x-request-id': id } });
    let texts = 0;
    stream.on('text', () => {
      texts++;
    });
    const final = await stream.finalMessage();
    const { record, truth } = await recordAndTruth(id);
    assert.equal(texts, truth.contentChunkEmittedAtMs.length);
    assert.equal(final.usage.output_tokens, truth.completionTokens);
    assert.equal(final.stop_reason, finishName('anthropic-messages', truth));
    const errors = assertStreamMatchesTruth(record, truth);
    t.diagnostic(`anthropic messages ${baseURL}: TTFT lag ${errors.ttftLagMs.toFixed(3)} ms`);
  }
});

test('the base URL each print-config SDK snippet prints is a shape tested above', () => {
  const context = { gatewayUrl: gateway.url, model: MODEL, keyEnv: 'TOKENMETER_KEY' };
  for (const name of ['openai-sdk', 'anthropic-sdk']) {
    const snippet = CLIENT_SNIPPETS[name]?.(context);
    assert.ok(snippet, name);
    const baseURL = /baseURL: '([^']+)'/.exec(snippet.text)?.[1];
    assert.ok(baseURL !== undefined, `${name} prints a baseURL`);
    assert.ok(baseUrls().includes(baseURL), `${name}: ${baseURL} is one of ${baseUrls().join(', ')}`);
  }
});
