// One usage reader per protocol: a streamed answer and the same answer sent whole give the same counts. Each
// protocol's stream classifier and its non-streamed answer reader call the one reader in the protocol's folder
// (src/protocols/<protocol>/); this holds them to it, first on hand-written answers that carry every count
// (cached prompt tokens, reasoning tokens), then end to end: the simulator, reasoning, behind the gateway, asked the
// same question streamed and not, and the two records compared. Before the readers were one, a non-streamed
// answer's record had reasoningTokens null where the streamed one had the upstream's count (docs/metrics.md,
// "Changed names").
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { request } from 'undici';
import type { EventFacts } from '../../src/measure/answer-facts.js';
import { PROTOCOLS, type ProtocolName, protocolByName } from '../../src/protocols/index.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { startGateway } from '../gateway/helpers/gateway.js';

interface Counts {
  readonly promptTokens: number | null;
  readonly cachedPromptTokens: number | null;
  readonly outputTokens: number | null;
  readonly reasoningTokens: number | null;
  readonly implausibleUsage: string | null;
}

/** The counts a stream's events report, the last report of each winning (as the meter takes them). */
function streamedCounts(name: ProtocolName, events: readonly { event?: string; data: unknown }[]): Counts {
  const classifier = protocolByName(name).classifier;
  let seen: EventFacts = {};
  for (const { event, data } of events) {
    const facts = classifier.classify({ event, data: JSON.stringify(data) } as never);
    seen = { ...seen, ...facts };
  }
  return {
    promptTokens: seen.promptTokens ?? null,
    cachedPromptTokens: seen.cachedPromptTokens ?? null,
    outputTokens: seen.completionTokens ?? null,
    reasoningTokens: seen.reasoningTokens ?? null,
    implausibleUsage: seen.implausibleUsage ?? null,
  };
}

function wholeCounts(name: ProtocolName, answer: unknown): Counts {
  const facts = protocolByName(name).readAnswer(Buffer.from(JSON.stringify(answer)));
  return {
    promptTokens: facts.promptTokens,
    cachedPromptTokens: facts.cachedPromptTokens,
    outputTokens: facts.source === 'usage' ? facts.outputTokens : null,
    reasoningTokens: facts.reasoningTokens,
    implausibleUsage: facts.implausibleUsage ?? null,
  };
}

/** Each protocol's answer carrying `usage`, streamed (its events) and whole. */
const ANSWERS: Record<
  ProtocolName,
  (usage: object) => { stream: { event?: string; data: unknown }[]; whole: unknown }
> = {
  'openai-chat': (usage) => ({
    stream: [
      { data: { choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: null }] } },
      { data: { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] } },
      { data: { choices: [], usage } },
    ],
    whole: { choices: [{ message: { content: 'hi' }, finish_reason: 'stop' }], usage },
  }),
  'openai-completions': (usage) => ({
    stream: [
      { data: { choices: [{ index: 0, text: 'hi', finish_reason: 'stop' }] } },
      { data: { choices: [], usage } },
    ],
    whole: { choices: [{ text: 'hi', finish_reason: 'stop' }], usage },
  }),
  'openai-responses': (usage) => ({
    stream: [
      { data: { type: 'response.output_text.delta', delta: 'hi' } },
      { data: { type: 'response.completed', response: { id: 'resp_1', status: 'completed', usage } } },
    ],
    whole: {
      id: 'resp_1',
      object: 'response',
      status: 'completed',
      output: [{ type: 'message', content: [{ type: 'output_text', text: 'hi' }] }],
      usage,
    },
  }),
  // The stream splits usage in two: the prompt side in message_start, output (cumulative) in message_delta.
  'anthropic-messages': (usage) => ({
    stream: [
      {
        event: 'message_start',
        data: { type: 'message_start', message: { usage: { ...usage, output_tokens: 1 } } },
      },
      {
        event: 'content_block_delta',
        data: { type: 'content_block_delta', delta: { type: 'text_delta', text: 'hi' } },
      },
      { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage } },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ],
    whole: { type: 'message', content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn', usage },
  }),
};

/** Each protocol's usage with every count it has: prompt, cached prompt, output, reasoning. */
const USAGES: Record<ProtocolName, { usage: object; counts: Counts }> = {
  'openai-chat': {
    usage: {
      prompt_tokens: 40,
      completion_tokens: 12,
      prompt_tokens_details: { cached_tokens: 16 },
      completion_tokens_details: { reasoning_tokens: 5 },
    },
    counts: {
      promptTokens: 40,
      cachedPromptTokens: 16,
      outputTokens: 12,
      reasoningTokens: 5,
      implausibleUsage: null,
    },
  },
  'openai-completions': {
    usage: { prompt_tokens: 40, completion_tokens: 12, completion_tokens_details: { reasoning_tokens: 5 } },
    counts: {
      promptTokens: 40,
      cachedPromptTokens: null,
      outputTokens: 12,
      reasoningTokens: 5,
      implausibleUsage: null,
    },
  },
  'openai-responses': {
    usage: {
      input_tokens: 40,
      output_tokens: 12,
      input_tokens_details: { cached_tokens: 16 },
      output_tokens_details: { reasoning_tokens: 5 },
    },
    counts: {
      promptTokens: 40,
      cachedPromptTokens: 16,
      outputTokens: 12,
      reasoningTokens: 5,
      implausibleUsage: null,
    },
  },
  // Cache reads and writes are prompt tokens beside input_tokens; thinking is inside output_tokens, not counted apart.
  'anthropic-messages': {
    usage: {
      input_tokens: 8,
      cache_read_input_tokens: 16,
      cache_creation_input_tokens: 16,
      output_tokens: 12,
    },
    counts: {
      promptTokens: 40,
      cachedPromptTokens: 16,
      outputTokens: 12,
      reasoningTokens: null,
      implausibleUsage: null,
    },
  },
};

test('each protocol reaches one usage reader, and every usage reader serves a protocol', () => {
  // scripts/structure.js: the files that read a usage's output count, and those each protocol's descriptor reaches.
  const figures = JSON.parse(
    execFileSync(process.execPath, ['scripts/structure.js', '--json'], { encoding: 'utf8' }),
  );
  const byProtocol = figures.usageReadersByProtocol as Record<string, string[]>;
  assert.deepEqual(Object.keys(byProtocol).sort(), PROTOCOLS.map((p) => p.name).sort());
  for (const [protocol, readers] of Object.entries(byProtocol))
    assert.equal(readers.length, 1, `${protocol}: ${readers}`);
  assert.deepEqual([...new Set(Object.values(byProtocol).flat())].sort(), [...figures.usageReaders].sort());
});

test('each protocol reads the same usage to the same counts, streamed and whole', () => {
  for (const [name, { usage, counts }] of Object.entries(USAGES) as [
    ProtocolName,
    (typeof USAGES)[ProtocolName],
  ][]) {
    const answer = ANSWERS[name](usage);
    assert.deepEqual(streamedCounts(name, answer.stream), counts, `${name}, streamed`);
    assert.deepEqual(wholeCounts(name, answer.whole), counts, `${name}, whole`);
  }
});

test('each protocol refuses an implausible usage alike, streamed and whole', () => {
  const implausible: Record<ProtocolName, object> = {
    'openai-chat': { prompt_tokens: 1e12, completion_tokens: 3 },
    'openai-completions': { prompt_tokens: 1e12, completion_tokens: 3 },
    'openai-responses': { input_tokens: 1e12, output_tokens: 3 },
    'anthropic-messages': { input_tokens: 1e12, output_tokens: 3 },
  };
  for (const [name, usage] of Object.entries(implausible) as [ProtocolName, object][]) {
    const answer = ANSWERS[name](usage);
    const streamed = streamedCounts(name, answer.stream);
    const whole = wholeCounts(name, answer.whole);
    assert.match(streamed.implausibleUsage ?? '', /usage\.(prompt|input)_tokens is 1000000000000/, name);
    assert.deepEqual(whole, streamed, name);
    assert.equal(whole.promptTokens, null, name);
  }
});

test('the gateway records the same counts for an answer streamed and the same answer whole', async (t) => {
  const REASONING_TOKENS = 6;
  const sim: RunningSimulator = await startSimulator({
    timing: { ttftMs: 1, itlMs: 1, prefillMsPerToken: 0, jitter: 0 },
    reasoning: { tokens: REASONING_TOKENS, chatField: 'reasoning' },
  });
  const gateway = await startGateway({
    upstreams: [{ name: 'sim', baseUrl: `${sim.url}/v1`, keyless: true }],
  });
  t.after(async () => {
    await gateway.close();
    await sim.close();
  });
  // The protocols whose usage counts reasoning apart (Anthropic's counts it inside output_tokens only).
  const cases = [
    {
      path: '/v1/chat/completions',
      body: { messages: [{ role: 'user', content: 'one two three four' }], max_tokens: 12, ignore_eos: true },
      stream: { stream: true, stream_options: { include_usage: true } },
    },
    {
      path: '/v1/responses',
      body: { input: 'one two three four', max_output_tokens: 12 },
      stream: { stream: true },
    },
  ];
  let sent = 0;
  for (const c of cases) {
    for (const streamed of [true, false]) {
      const res = await request(`${gateway.url}${c.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'tokenmeter/sim-7b', ...c.body, ...(streamed ? c.stream : {}) }),
      });
      assert.equal(res.statusCode, 200, `${c.path} streamed ${streamed}`);
      await res.body.text();
      sent += 1;
    }
    const [streamedRecord, wholeRecord] = (await gateway.recordsAfter(sent)).slice(-2);
    assert.ok(streamedRecord !== undefined && wholeRecord !== undefined);
    assert.equal(streamedRecord.stream, true);
    assert.equal(wholeRecord.stream, false);
    const countsOf = (r: typeof streamedRecord) => ({
      outcome: r.outcome,
      promptTokens: r.promptTokens,
      cachedPromptTokens: r.cachedPromptTokens,
      outputTokens: r.outputTokens,
      outputTokensSource: r.outputTokensSource,
      reasoningTokens: r.reasoningTokens,
    });
    assert.deepEqual(countsOf(wholeRecord), countsOf(streamedRecord), c.path);
    assert.equal(streamedRecord.reasoningTokens, REASONING_TOKENS, c.path);
    assert.equal(streamedRecord.outputTokens, 12, c.path);
    assert.equal(streamedRecord.outputTokensSource, 'usage', c.path);
  }
});
