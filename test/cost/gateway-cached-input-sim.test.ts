// The cached-input price end to end: the real gateway, priced with a cached-input price, in front of the
// prefix-caching simulator. The same long prompt sent twice: the second answer's cached tokens come from the
// simulator's own cache (not a scripted usage), the gateway's record holds exactly the simulator's truth, and its
// input cost charges those tokens the cached price. For chat (streamed and not) and Anthropic Messages, whose
// input_tokens leave the cached ones out.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { DEFAULT_MODEL_NAME } from '../../src/sim/config.js';
import { type RequestTruth, type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';

const INPUT = 2;
const CACHED_INPUT = 0.5;
const OUTPUT = 6;
/** About 700 prompt tokens: dozens of full 16-token blocks to find cached. */
const LONG_PROMPT = Array.from({ length: 70 }, (_, i) => `Clause ${i}: the tenant pays on time.`).join(' ');

let sim: RunningSimulator;
let gateway: TestGateway;

before(async () => {
  sim = await startSimulator({
    seed: 2,
    timing: { ttftMs: 2, prefillMsPerToken: 0.01, itlMs: 1, jitter: 0 },
    kv: { enablePrefixCaching: true },
  });
  gateway = await startGateway({
    upstreams: [
      {
        name: 'sim',
        baseUrl: `${sim.url}/v1`,
        keyless: true,
        default: true,
        prices: {
          [DEFAULT_MODEL_NAME]: {
            inputPerMillion: INPUT,
            cachedInputPerMillion: CACHED_INPUT,
            outputPerMillion: OUTPUT,
            currency: 'USD',
          },
        },
      },
    ],
  });
});
after(async () => {
  await gateway.close();
  await sim.close();
});

interface Case {
  readonly name: string;
  readonly path: string;
  readonly body: (question: string) => Record<string, unknown>;
}

const CASES: Case[] = [
  {
    name: 'chat, streamed',
    path: '/v1/chat/completions',
    body: (question) => ({
      model: DEFAULT_MODEL_NAME,
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 4,
      messages: [{ role: 'user', content: `${LONG_PROMPT} ${question}` }],
    }),
  },
  {
    name: 'chat, not streamed',
    path: '/v1/chat/completions',
    body: (question) => ({
      model: DEFAULT_MODEL_NAME,
      max_tokens: 4,
      messages: [
        { role: 'system', content: `Streamless. ${LONG_PROMPT}` },
        { role: 'user', content: question },
      ],
    }),
  },
  {
    name: 'Anthropic Messages, streamed',
    path: '/v1/messages',
    body: (question) => ({
      model: DEFAULT_MODEL_NAME,
      stream: true,
      max_tokens: 4,
      system: `Messages. ${LONG_PROMPT}`,
      messages: [{ role: 'user', content: question }],
    }),
  },
];

async function send(path: string, body: Record<string, unknown>, requestId: string): Promise<void> {
  const response = await request(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': requestId },
    body: JSON.stringify(body),
  });
  await response.body.text();
  assert.equal(response.statusCode, 200, `${path} ${requestId}`);
}

test("the second of two long prompts costs its cached tokens at the cached-input price, the simulator's count", async () => {
  let sent = 0;
  for (const [n, c] of CASES.entries()) {
    // One after the other: the first's prompt blocks are in the cache when the second arrives.
    await send(c.path, c.body('First question?'), `cached-${n}-1`);
    await send(c.path, c.body('Second question?'), `cached-${n}-2`);
    sent += 2;
    const records = await gateway.recordsAfter(sent);
    const [first, second] = records.slice(-2);
    assert.ok(first !== undefined && second !== undefined);
    for (const [record, id] of [
      [first, `cached-${n}-1`],
      [second, `cached-${n}-2`],
    ] as const) {
      const truth = sim.truth(id) as RequestTruth;
      const what = `${c.name}, ${id}`;
      assert.equal(record.requestId, id, what);
      assert.equal(record.outcome, 'ok', what);
      assert.equal(
        record.promptTokens,
        truth.promptTokens,
        `${what}: every prompt token, cached ones included`,
      );
      assert.equal(
        record.cachedPromptTokens,
        truth.cachedTokens,
        `${what}: the simulator's own cached count`,
      );
      const cached = truth.cachedTokens;
      const expected = ((truth.promptTokens - cached) * INPUT + cached * CACHED_INPUT) / 1e6;
      // A few float operations on numbers below 1e4: far inside 1e-15.
      assert.ok(
        Math.abs((record.costInput ?? Number.NaN) - expected) < 1e-15,
        `${what}: ${record.costInput}`,
      );
      assert.ok(
        Math.abs((record.costOutput ?? Number.NaN) - ((record.outputTokens ?? 0) * OUTPUT) / 1e6) < 1e-15,
        what,
      );
    }
    assert.equal(
      sim.truth(`cached-${n}-1`)?.cachedTokens,
      0,
      `${c.name}: the first prompt finds nothing cached`,
    );
    const cached = second.cachedPromptTokens ?? 0;
    // The long part is shared in whole 16-token blocks; only the question at the end differs.
    assert.ok(
      cached >= 600 && cached % 16 === 0,
      `${c.name}: ${cached} of ${second.promptTokens} prompt tokens cached`,
    );
    assert.ok(
      (second.costInput ?? 0) < (first.costInput ?? 0) / 2,
      `${c.name}: ${second.costInput} against ${first.costInput}`,
    );
  }
});
