// What agents send, accepted in every protocol (each of these shapes was a 422): tool history (Anthropic tool_use
// and tool_result blocks, Responses function_call and function_call_output items, chat assistant tool_calls and
// role tool), reasoning handed back (thinking blocks, reasoning items) and images (256 prompt tokens each). The
// request's own reasoning (thinking, reasoning.effort, reasoning_effort) gets reasoning in its protocol's form.
// And the endpoints agents and SDKs call: count_tokens, models/{id}, Anthropic's model list, a path prefix.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { request } from 'undici';
import { estimateTokens } from '../../src/shared/token-estimate.js';
import type { SimOptions } from '../../src/sim/index.js';
import { IMAGE_TOKENS } from '../../src/sim/prompt-blocks.js';
import { runCli, startCli, stopCli } from '../helpers/run-cli.js';
import { type CapturedStream, payloads, postAndCapture } from '../helpers/sse-capture.js';
import { anthropicTools, chatTools, responsesTools } from './helpers/agent-tools.js';
import { withSim } from './helpers/with-sim.js';

type Json = Record<string, unknown>;
const MODEL = 'tokenmeter/sim-7b';
const TIMING = { ttftMs: 1, itlMs: 0.2, prefillMsPerToken: 0, jitter: 0 };
// No tool calls here: these tests are about what is accepted and how it counts.
const OPTIONS: SimOptions = { timing: TIMING, tools: { callRate: 0 } };
const PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, body: (await res.body.json()) as Json };
}

function jsonEvents(stream: CapturedStream): Json[] {
  return payloads(stream).filter((p): p is Json => p !== '[DONE]');
}

const ANTHROPIC_HISTORY = [
  { role: 'user', content: "What's in this picture, and the weather?" },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'I should look it up.', signature: 'sig' },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
    ],
  },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: [
          { type: 'text', text: 'Sunny.' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL } },
        ],
      },
      { type: 'text', text: 'And now?' },
    ],
  },
];

test('Anthropic: tool_use, tool_result (text and image), thinking blocks accepted; count_tokens equals usage', async () => {
  await withSim(OPTIONS, async (sim) => {
    const body = { model: MODEL, max_tokens: 20, messages: ANTHROPIC_HISTORY, tools: anthropicTools() };
    const answer = await postJson(`${sim.url}/v1/messages`, body);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const usage = answer.body['usage'] as Json;
    const client = new Anthropic({ baseURL: sim.url, apiKey: 'unused', maxRetries: 0 });
    const counted = await client.messages.countTokens({
      model: MODEL,
      messages: ANTHROPIC_HISTORY as Anthropic.MessageParam[],
      tools: anthropicTools(),
    });
    assert.equal(counted.input_tokens, usage['input_tokens']);
    // Without the tool list, the image and the reasoning: what each adds is the stated rule.
    const plain = await client.messages.countTokens({
      model: MODEL,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }],
    });
    const withImage = await client.messages.countTokens({
      model: MODEL,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'x' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL } },
          ],
        },
      ],
    });
    assert.equal(withImage.input_tokens - plain.input_tokens, IMAGE_TOKENS);
    const unknownBlock = await postJson(`${sim.url}/v1/messages`, {
      ...body,
      messages: [{ role: 'user', content: [{ type: 'audio', data: 'x' }] }],
    });
    assert.equal(unknownBlock.status, 422);
    assert.match(JSON.stringify(unknownBlock.body), /must be a content block of type text, image, tool_use/);
  });
});

test('Responses: function_call, function_call_output, reasoning items and input_image accepted', async () => {
  await withSim(OPTIONS, async (sim) => {
    const input = [
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'Weather?' },
          { type: 'input_image', image_url: `data:image/png;base64,${PIXEL}` },
        ],
      },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'Sunny.' },
    ];
    const answer = await postJson(`${sim.url}/v1/responses`, {
      model: MODEL,
      input,
      tools: responsesTools(),
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const withoutImage = await postJson(`${sim.url}/v1/responses`, {
      model: MODEL,
      input: [{ ...input[0], content: [{ type: 'input_text', text: 'Weather?' }] }, ...input.slice(1)],
      tools: responsesTools(),
    });
    const tokens = (r: { body: Json }) => (r.body['usage'] as Json)['input_tokens'] as number;
    assert.equal(tokens(answer) - tokens(withoutImage), IMAGE_TOKENS);
    const unknown = await postJson(`${sim.url}/v1/responses`, {
      model: MODEL,
      input: [{ type: 'web_search_call' }],
    });
    assert.equal(unknown.status, 422);
    assert.match(
      JSON.stringify(unknown.body),
      /has type \\"web_search_call\\"; the simulator takes message, function_call/,
    );
  });
});

test('chat: assistant tool_calls, role tool and image_url parts accepted; the tool list counts as prompt', async () => {
  await withSim(OPTIONS, async (sim) => {
    const messages = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL}` } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'Sunny.' },
    ];
    const promptTokens = async (body: Json) => {
      const r = await postJson(`${sim.url}/v1/chat/completions`, { model: MODEL, max_tokens: 5, ...body });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return (r.body['usage'] as Json)['prompt_tokens'] as number;
    };
    const withTools = await promptTokens({ messages, tools: chatTools() });
    const without = await promptTokens({ messages });
    // A message of the tool list's JSON: its tokens under the built-in rule and the template's 4.
    assert.equal(withTools - without, estimateTokens(JSON.stringify(chatTools())) + 4);
    const textOnly = await promptTokens({
      messages: [{ ...messages[0], content: 'Weather?' }, ...messages.slice(1)],
    });
    assert.equal(without - textOnly, IMAGE_TOKENS);
  });
});

test("the request's reasoning: Anthropic thinking blocks, Responses reasoning summary, chat reasoning deltas", async () => {
  await withSim(OPTIONS, async (sim) => {
    const anthropic = jsonEvents(
      await postAndCapture(`${sim.url}/v1/messages`, {
        model: MODEL,
        max_tokens: 2000,
        stream: true,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: 'Think.' }],
      }),
    );
    const thinking = anthropic.filter((e) => (e['delta'] as Json | undefined)?.['type'] === 'thinking_delta');
    assert.equal(thinking.length, 64, 'medium effort: 64 reasoning tokens, one a chunk');
    assert.equal(((anthropic[1] as Json)['content_block'] as Json)['type'], 'thinking');
    assert.ok(anthropic.some((e) => (e['delta'] as Json | undefined)?.['type'] === 'signature_delta'));
    const budgeted = await postJson(`${sim.url}/v1/messages`, {
      model: MODEL,
      max_tokens: 200,
      thinking: { type: 'adaptive', budget_tokens: 10 },
      output_config: { effort: 'high' },
      messages: [{ role: 'user', content: 'Think.' }],
    });
    const blocks = budgeted.body['content'] as Json[];
    assert.equal(blocks[0]?.['type'], 'thinking');
    assert.equal(estimateTokens(blocks[0]?.['thinking'] as string), 10, 'within budget_tokens');
    const none = await postJson(`${sim.url}/v1/messages`, {
      model: MODEL,
      max_tokens: 20,
      messages: [{ role: 'user', content: 'Think.' }],
    });
    assert.deepEqual(
      (none.body['content'] as Json[]).map((b) => b['type']),
      ['text'],
    );

    const responses = jsonEvents(
      await postAndCapture(`${sim.url}/v1/responses`, {
        model: MODEL,
        input: 'Think.',
        stream: true,
        reasoning: { effort: 'low', summary: 'auto' },
        include: ['reasoning.encrypted_content'],
      }),
    );
    const summary = responses.filter((e) => e['type'] === 'response.reasoning_summary_text.delta');
    assert.equal(summary.length, 32, 'low effort: 32 reasoning tokens');
    const completed = responses.at(-1)?.['response'] as Json;
    const item = (completed['output'] as Json[])[0] as Json;
    assert.equal(item['type'], 'reasoning');
    assert.equal(((item['summary'] as Json[])[0] as Json)['text'], summary.map((e) => e['delta']).join(''));
    assert.equal(typeof item['encrypted_content'], 'string');
    assert.equal(((completed['usage'] as Json)['output_tokens_details'] as Json)['reasoning_tokens'], 32);

    const chat = jsonEvents(
      await postAndCapture(`${sim.url}/v1/chat/completions`, {
        model: MODEL,
        max_tokens: 300,
        stream: true,
        reasoning_effort: 'high',
        messages: [{ role: 'user', content: 'Think.' }],
      }),
    );
    const deltas = chat.flatMap((e) => (e['choices'] as Json[]).map((c) => c['delta'] as Json));
    assert.equal(deltas.filter((d) => typeof d['reasoning'] === 'string').length, 128, 'high effort: 128');
  });
  // --reasoning-tokens still decides the length where it is set.
  await withSim({ ...OPTIONS, reasoning: { tokens: 5 } }, async (sim) => {
    const r = await postJson(`${sim.url}/v1/chat/completions`, {
      model: MODEL,
      max_tokens: 50,
      reasoning_effort: 'high',
      messages: [{ role: 'user', content: 'Think.' }],
    });
    assert.equal(((r.body['usage'] as Json)['completion_tokens_details'] as Json)['reasoning_tokens'], 5);
  });
});

test("models/{id} in OpenAI's and Anthropic's shapes; the Anthropic SDK's models.list has every field", async () => {
  await withSim({ ...OPTIONS, servedModelNames: [MODEL, 'second'] }, async (sim) => {
    const openai = new OpenAI({ baseURL: `${sim.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const model = await openai.models.retrieve(MODEL);
    assert.equal(model.id, MODEL);
    assert.equal(model.object, 'model');
    await assert.rejects(
      openai.models.retrieve('nope'),
      (e: unknown) => (e as { status: number }).status === 404,
    );

    const anthropic = new Anthropic({ baseURL: sim.url, apiKey: 'unused', maxRetries: 0 });
    const info = await anthropic.models.retrieve(MODEL);
    assert.deepEqual(
      { type: info.type, id: info.id, display_name: info.display_name },
      { type: 'model', id: MODEL, display_name: MODEL },
    );
    assert.ok(!Number.isNaN(Date.parse(info.created_at)));
    const listed: Anthropic.ModelInfo[] = [];
    for await (const m of anthropic.models.list()) listed.push(m);
    assert.deepEqual(
      listed.map((m) => m.id),
      [MODEL, 'second'],
    );
    for (const m of listed) {
      for (const field of ['type', 'id', 'display_name', 'created_at'] as const) {
        assert.notEqual(m[field], undefined, `${field} of ${m.id}`);
      }
    }
    const page = await request(`${sim.url}/v1/models`, { headers: { 'anthropic-version': '2023-06-01' } });
    const json = (await page.body.json()) as Json;
    assert.deepEqual([json['has_more'], json['first_id'], json['last_id']], [false, MODEL, 'second']);
  });
});

test('--path-prefix /api: the API under /api/v1 (a hosted base URL), /health at the root, /v1 a 404 that says where', async () => {
  await withSim({ ...OPTIONS, pathPrefix: '/api' }, async (sim) => {
    const openai = new OpenAI({ baseURL: `${sim.url}/api/v1`, apiKey: 'unused', maxRetries: 0 });
    const answer = await openai.chat.completions.create({
      model: MODEL,
      max_tokens: 3,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.ok((answer.choices[0]?.message.content ?? '') !== '');
    const anthropic = new Anthropic({ baseURL: `${sim.url}/api`, apiKey: 'unused', maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 3,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.equal(message.type, 'message');
    assert.equal((await request(`${sim.url}/health`)).statusCode, 200);
    const outside = await postJson(`${sim.url}/v1/chat/completions`, { model: MODEL, messages: [] });
    assert.equal(outside.status, 404);
    assert.match(JSON.stringify(outside.body), /answers \/api\/v1\/models, \/api\/v1\/chat\/completions/);
  });
});

test('the CLI: --path-prefix, --tool-call-rate and --max-tool-turns reach the simulator; a bad prefix is one line', async () => {
  const { child, match } = await startCli(
    [
      'sim',
      '--port',
      '0',
      '--path-prefix',
      '/api/',
      '--tool-call-rate',
      '1',
      '--max-tool-turns',
      '1',
      '--itl-ms',
      '0',
    ],
    /API under \/api: base URL (http:\/\/\S+)\n/,
  );
  try {
    const ask = async (messages: Json[]) => {
      const r = await postJson(`${match[1]}/chat/completions`, {
        model: MODEL,
        max_tokens: 200,
        messages,
        tools: chatTools(),
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return ((r.body['choices'] as Json[])[0] as Json)['finish_reason'];
    };
    const user = { role: 'user', content: 'Weather?' };
    assert.equal(await ask([user]), 'tool_calls');
    const call = { id: 'c', type: 'function', function: { name: 'read_file', arguments: '{}' } };
    const afterOne = [
      user,
      { role: 'assistant', tool_calls: [call] },
      { role: 'tool', tool_call_id: 'c', content: 'x' },
    ];
    assert.notEqual(await ask(afterOne), 'tool_calls', 'the cap of 1 reached');
  } finally {
    await stopCli(child);
  }
  const bad = await runCli(['sim', '--port', '0', '--path-prefix', 'api']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /pathPrefix must be '' or a path such as \/api/);
  assert.doesNotMatch(bad.stderr, /at .*\.js:\d+/, 'no stack trace');
});
