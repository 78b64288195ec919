// The cached-input price through the real gateway: an upstream that reports cached prompt tokens the way OpenAI
// (usage.prompt_tokens_details.cached_tokens) and Anthropic (cache_read_input_tokens beside input_tokens) do, streamed
// and not, priced with and without a cached-input price; each record's cost and tokenmeter_cost_total checked
// against the numbers worked out by hand.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import type { GatewayConfigInput } from '../../src/gateway/config/config.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { chatChunk, startUpstream, type TestUpstream } from '../gateway/helpers/upstream.js';

// Every answer: 1000 prompt tokens of which 600 cached, 50 output tokens.
const PROMPT = 1000;
const CACHED = 600;
const OUTPUT = 50;
// 400 x 2.5 + 600 x 1.25 = 1750 per million; without a cached price, 1000 x 2.5 = 2500 per million.
const COST_INPUT_CACHED_PRICE = 0.00175;
const COST_INPUT_NO_CACHED_PRICE = 0.0025;
const COST_OUTPUT = 0.0005; // 50 x 10 / 1e6

const OPENAI_USAGE = {
  prompt_tokens: PROMPT,
  completion_tokens: OUTPUT,
  total_tokens: PROMPT + OUTPUT,
  prompt_tokens_details: { cached_tokens: CACHED },
};
// Anthropic's input_tokens leave out what was read from (and written to) the cache.
const ANTHROPIC_START_USAGE = {
  input_tokens: PROMPT - CACHED,
  cache_read_input_tokens: CACHED,
  cache_creation_input_tokens: 0,
  output_tokens: 1,
};

function openAiAnswer(res: ServerResponse, body: { stream?: boolean; model: string }): void {
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
        usage: OPENAI_USAGE,
      }),
    );
    return;
  }
  const usage = {
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: body.model,
    choices: [],
    usage: OPENAI_USAGE,
  };
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(
    `${chatChunk({ content: 'hi' })}${chatChunk({}, 'stop')}data: ${JSON.stringify(usage)}\n\ndata: [DONE]\n\n`,
  );
}

function anthropicAnswer(res: ServerResponse, body: { stream?: boolean; model: string }): void {
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: [{ type: 'text', text: 'hi' }],
        stop_reason: 'end_turn',
        usage: { ...ANTHROPIC_START_USAGE, output_tokens: OUTPUT },
      }),
    );
    return;
  }
  const event = (type: string, data: Record<string, unknown>): string =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(
    event('message_start', { message: { id: 'msg_1', model: body.model, usage: ANTHROPIC_START_USAGE } }) +
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'hi' } }) +
      event('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: OUTPUT } }) +
      event('message_stop', {}),
  );
}

let upstream: TestUpstream;
let gateway: TestGateway;

before(async () => {
  upstream = await startUpstream((req: IncomingMessage, res, raw) => {
    const body = JSON.parse(raw.toString()) as { stream?: boolean; model: string };
    if (req.url?.endsWith('/messages')) anthropicAnswer(res, body);
    else openAiAnswer(res, body);
  });
  const config: GatewayConfigInput = {
    upstreams: [
      {
        name: 'hosted',
        baseUrl: `${upstream.url}/v1`,
        keyless: true,
        default: true,
        prices: {
          cached: {
            inputPerMillion: 2.5,
            cachedInputPerMillion: 1.25,
            outputPerMillion: 10,
            currency: 'USD',
          },
          plain: { inputPerMillion: 2.5, outputPerMillion: 10, currency: 'USD' },
        },
      },
    ],
  };
  gateway = await startGateway(config);
});
after(async () => {
  await gateway.close();
  await upstream.close();
});

async function send(path: string, model: string, stream: boolean): Promise<void> {
  const response = await request(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model,
      stream,
      max_tokens: OUTPUT,
      messages: [{ role: 'user', content: 'hello' }],
    }),
  });
  await response.body.text();
  assert.equal(response.statusCode, 200);
}

async function costSamples(): Promise<Map<string, number>> {
  const page = await (await request(`${gateway.url}/metrics`)).body.text();
  const samples = new Map<string, number>();
  for (const match of page.matchAll(/^tokenmeter_cost_total\{.*model="(\w+)".*\} (\S+)$/gm))
    samples.set(match[1] ?? '', Number(match[2]));
  return samples;
}

test('cached prompt tokens cost the cached-input price, the rest the input price, on records and the metric', async () => {
  const sent: [string, string, boolean][] = [
    ['/v1/chat/completions', 'cached', true],
    ['/v1/chat/completions', 'cached', false],
    ['/v1/messages', 'cached', true],
    ['/v1/messages', 'cached', false],
    ['/v1/chat/completions', 'plain', true],
    ['/v1/messages', 'plain', false],
  ];
  for (const [path, model, stream] of sent) await send(path, model, stream);
  const records = await gateway.recordsAfter(sent.length);
  for (const [i, record] of records.entries()) {
    const [path, model, stream] = sent[i] ?? [];
    const what = `${path} ${model} stream=${stream}`;
    assert.equal(record.outcome, 'ok', what);
    assert.equal(record.promptTokens, PROMPT, `${what}: every prompt token, cached ones included`);
    assert.equal(record.cachedPromptTokens, CACHED, what);
    assert.equal(record.outputTokens, OUTPUT, what);
    const expected = model === 'cached' ? COST_INPUT_CACHED_PRICE : COST_INPUT_NO_CACHED_PRICE;
    assert.ok(
      Math.abs((record.costInput ?? Number.NaN) - expected) < 1e-15,
      `${what}: costInput ${record.costInput}`,
    );
    assert.ok(
      Math.abs((record.costOutput ?? Number.NaN) - COST_OUTPUT) < 1e-15,
      `${what}: costOutput ${record.costOutput}`,
    );
    assert.equal(record.currency, 'USD');
  }
  const samples = await costSamples();
  // Four requests at the cached price, two without; float sums of a few terms, far inside 1e-12.
  const cachedTotal = 4 * (COST_INPUT_CACHED_PRICE + COST_OUTPUT);
  const plainTotal = 2 * (COST_INPUT_NO_CACHED_PRICE + COST_OUTPUT);
  assert.ok(
    Math.abs((samples.get('cached') ?? Number.NaN) - cachedTotal) < 1e-12,
    `cached: ${samples.get('cached')}`,
  );
  assert.ok(
    Math.abs((samples.get('plain') ?? Number.NaN) - plainTotal) < 1e-12,
    `plain: ${samples.get('plain')}`,
  );
});

test('a negative or non-numeric cached-input price is refused at start, naming the field', async () => {
  for (const bad of [-1, 'cheap']) {
    await assert.rejects(
      startGateway({
        upstreams: [
          {
            name: 'hosted',
            baseUrl: `${upstream.url}/v1`,
            keyless: true,
            prices: {
              m: {
                inputPerMillion: 1,
                outputPerMillion: 1,
                cachedInputPerMillion: bad as number,
                currency: 'USD',
              },
            },
          },
        ],
      }),
      /upstreams\[0\]\.prices\.m\.cachedInputPerMillion must be a number/,
    );
  }
});
