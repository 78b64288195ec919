// The load generator speaks Anthropic Messages (--backend anthropic-messages) and OpenAI Responses
// (--backend openai-responses): each bench run against the simulator with exact timings (jitter 0, no early EOS)
// is checked against the simulator's ground truth with the tolerance of timing-accuracy.test.ts (each timestamp
// [0, 15 ms] late, TPOT within 2 ms of the configured 10 ms), the key travels in each protocol's own header, the
// closed-loop engine agrees with the open loop, and a backend/endpoint mismatch is named before anything is sent.
//
// The runs go through runBench with settings from the CLI's own settings builder, in-process, so the records and
// the simulator's truth share one performance.now() clock and every piece of the bench path (target URL, body,
// headers, engine, stream classifier) is the one a `tokenmeter bench` command uses.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { BenchRunResult } from '../../loadgen/bench/aggregate.js';
import { buildPayload, type PayloadOptions, sessionTurnBody } from '../../loadgen/bench/prepare-requests.js';
import { runBench } from '../../loadgen/bench/run-bench.js';
import type { BenchSettings } from '../../loadgen/bench/settings.js';
import { resolveTarget } from '../../loadgen/bench/target-url.js';
import { median } from '../../loadgen/metrics/numpy-stats.js';
import { tpotMs } from '../../loadgen/metrics/vllm-metrics.js';
import type { RequestRecord } from '../../loadgen/record.js';
import type { BenchValues } from '../../src/cli/bench-options.js';
import { benchSettingsFrom } from '../../src/cli/bench-settings.js';
import type { Backend } from '../../src/protocols/backends.js';
import { DEFAULT_MODEL_NAME } from '../../src/sim/config.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { measureStalls } from '../helpers/loop-stall.js';
import { bench, cleanEnv } from './helpers/bench-cli.js';
import { exactTiming } from './helpers/bench-fixtures.js';

const NEW_BACKENDS: readonly Backend[] = ['anthropic-messages', 'openai-responses'];
const ENDPOINTS: Readonly<Record<string, string>> = {
  'anthropic-messages': '/v1/messages',
  'openai-responses': '/v1/responses',
};
const BASE_TOLERANCE_MS = 15;
const TOKENS = 12;
const KEY = 'protocols-key';

let sim: RunningSimulator;
let counter: Server;
let counterUrl = '';
let counterHits = 0;
/** Headers of every request the counting server saw (it answers 401 to all). */
const seenHeaders: IncomingHttpHeaders[] = [];

before(async () => {
  // eosMedianTokens far above the request: no early end, so every answer has exactly the requested length.
  sim = await startSimulator({
    seed: 11,
    apiKey: KEY,
    timing: { ...exactTiming(40, 10), eosMedianTokens: 1_000_000 },
  });
  counter = createServer((req, res) => {
    // Only API requests are counted: bench also looks for the target's /metrics (server metrics).
    if (req.method === 'POST') {
      counterHits++;
      seenHeaders.push(req.headers);
    }
    req.resume();
    res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"counted"}}');
  });
  await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
  counterUrl = `http://127.0.0.1:${(counter.address() as AddressInfo).port}`;
});
after(async () => {
  await sim.close();
  await new Promise((resolve) => counter.close(resolve));
});

/** Bench settings as the CLI builds them: `count` random prompts of exactly TOKENS output tokens. */
function settingsFor(
  backend: Backend,
  prefix: string,
  extra: Partial<BenchValues> = {},
  env: NodeJS.ProcessEnv = {},
): BenchSettings {
  return benchSettingsFrom(
    {
      backend,
      // With /v1: it must not become /v1/v1.
      'base-url': `${sim.url}/v1`,
      'api-key': KEY,
      'dataset-name': 'random',
      'random-input-len': 24,
      'random-output-len': TOKENS,
      'num-prompts': 4,
      // 100 ms apart (burstiness this high makes the gamma gaps nearly constant), so no two streams share an
      // event-loop turn, as in timing-accuracy.test.ts.
      'request-rate': 10,
      burstiness: 1_000_000,
      'request-id-prefix': prefix,
      'no-records': true,
      'disable-tqdm': true,
      ...extra,
    },
    [],
    env,
    'protocols',
  );
}

function run(settings: BenchSettings): Promise<BenchRunResult> {
  return runBench({
    settings,
    model: DEFAULT_MODEL_NAME,
    recordsPath: null,
    signal: new AbortController().signal,
    progressStream: { write: () => true, isTTY: false },
  });
}

for (const backend of NEW_BACKENDS) {
  test(`${backend}: TTFT, every ITL, E2EL and TPOT match the simulator truth within the stated tolerance`, async () => {
    const prefix = `${backend}-timing-`;
    const settings = settingsFor(backend, prefix);
    assert.equal(settings.target.url, `${sim.url}${ENDPOINTS[backend]}`);
    const stalls = measureStalls();
    const result = await run(settings);
    // Plus the worst stall this process suffered during the run (test/helpers/loop-stall.ts).
    const TOLERANCE_MS = BASE_TOLERANCE_MS + stalls.stop();
    assert.equal(result.records.length, 4);
    for (const record of result.records) {
      assert.equal(
        record.outcome,
        'ok',
        `request ${record.index}: ${record.error} ${record.errorBodyExcerpt}`,
      );
      const truth = sim.truth(`${prefix}${record.index}`);
      assert.ok(
        truth !== undefined &&
          record.sentAtMs !== null &&
          record.ttftMs !== null &&
          record.lastTokenMs !== null,
      );
      assert.equal(truth.endpoint, backend, 'the simulator served it as this protocol');
      const sentAt = result.startedAtMs + record.sentAtMs;
      const emitted = truth.contentChunkEmittedAtMs;
      assert.equal(emitted.length, TOKENS);
      // Usage from message_start + message_delta / response.completed, not re-tokenized text.
      assert.equal(record.outputTokens, TOKENS);
      assert.equal(record.outputTokensSource, 'usage');
      // Lifecycle events and pings are not chunks: only the text deltas count.
      assert.equal(record.contentChunks, TOKENS);
      const ttftLate = record.ttftMs - ((emitted[0] as number) - sentAt);
      assert.ok(
        ttftLate >= 0 && ttftLate <= TOLERANCE_MS,
        `#${record.index}: TTFT ${record.ttftMs} vs truth, late by ${ttftLate}`,
      );
      assert.ok(record.ttftMs >= 40, `TTFT ${record.ttftMs} below the configured 40 ms (a lifecycle event?)`);
      const e2elLate = record.lastTokenMs - ((emitted[TOKENS - 1] as number) - sentAt);
      assert.ok(e2elLate >= 0 && e2elLate <= TOLERANCE_MS, `#${record.index}: E2EL late by ${e2elLate}`);
      assert.equal(record.itlMs.length, TOKENS - 1);
      record.itlMs.forEach((gap, i) => {
        const truthGap = (emitted[i + 1] as number) - (emitted[i] as number);
        assert.ok(
          Math.abs(gap - truthGap) <= TOLERANCE_MS,
          `#${record.index}: ITL ${i}: ${gap} vs truth ${truthGap}`,
        );
      });
      const tpot = tpotMs(record);
      const truthTpot = ((emitted[TOKENS - 1] as number) - (emitted[0] as number)) / (TOKENS - 1);
      assert.ok(
        tpot !== undefined && Math.abs(tpot - truthTpot) <= 2,
        `#${record.index}: TPOT ${tpot} vs truth ${truthTpot}`,
      );
    }
    assert.equal(result.metrics.completed, 4);
  });
}

function medianOf(records: RequestRecord[], pick: (r: RequestRecord) => number | undefined | null): number {
  return median(records.map(pick).filter((v): v is number => typeof v === 'number'));
}

test('openai-responses: the closed-loop engine agrees with the open loop', async () => {
  const workload = {
    'num-prompts': 8,
    'request-rate': Number.POSITIVE_INFINITY,
    'max-concurrency': 4,
  } as const;
  const open = await run(settingsFor('openai-responses', 'responses-open-', workload));
  const closed = await run(
    settingsFor('openai-responses', 'responses-closed-', { ...workload, engine: 'closed-loop' }),
  );
  for (const result of [open, closed]) {
    assert.deepEqual(
      result.records.map((r) => [r.index, r.outcome, r.outputTokens, r.contentChunks]),
      Array.from({ length: 8 }, (_, i) => [i, 'ok', TOKENS, TOKENS]),
    );
  }
  for (let i = 0; i < 8; i++) assert.ok(sim.truth(`responses-closed-${i}`), `the server saw closed #${i}`);
  const ttftGap = Math.abs(
    medianOf(open.records, (r) => r.ttftMs) - medianOf(closed.records, (r) => r.ttftMs),
  );
  const tpotGap = Math.abs(medianOf(open.records, tpotMs) - medianOf(closed.records, tpotMs));
  assert.ok(ttftGap <= 20, `TTFT medians differ by ${ttftGap} ms`);
  assert.ok(tpotGap <= 1.5, `TPOT medians differ by ${tpotGap} ms`);
});

test('the key travels as x-api-key + anthropic-version for Anthropic, as a bearer token for Responses', async () => {
  seenHeaders.length = 0;
  for (const backend of NEW_BACKENDS) {
    const settings = settingsFor(backend, `${backend}-headers-`, {
      'base-url': counterUrl,
      'num-prompts': 1,
      header: ['x-team=bench'],
    });
    const result = await run(settings);
    assert.equal(result.records[0]?.status, 401);
  }
  const [anthropic, responses] = seenHeaders;
  assert.ok(anthropic !== undefined && responses !== undefined);
  assert.equal(anthropic['x-api-key'], KEY);
  assert.equal(anthropic['anthropic-version'], '2023-06-01');
  assert.equal(anthropic.authorization, undefined, 'no bearer token to Anthropic');
  assert.equal(anthropic['x-team'], 'bench', '--header still sent');
  assert.equal(responses.authorization, `Bearer ${KEY}`);
  assert.equal(responses['x-api-key'], undefined);
  assert.equal(responses['anthropic-version'], undefined);
});

test('the wrong header form gets 401; ANTHROPIC_API_KEY is the Anthropic backend’s fallback', async () => {
  // Responses with the key in Anthropic's header (and no bearer token): the server refuses it.
  const wrongForm = await run(
    settingsFor('openai-responses', 'responses-wrong-form-', {
      'api-key': undefined,
      header: [`x-api-key=${KEY}`],
      'num-prompts': 1,
    }),
  );
  assert.equal(wrongForm.records[0]?.status, 401);
  assert.match(wrongForm.records[0]?.errorBodyExcerpt ?? '', /Authorization: Bearer/);
  // Anthropic without any key: 401 naming x-api-key.
  const noKey = await run(
    settingsFor('anthropic-messages', 'anthropic-no-key-', { 'api-key': undefined, 'num-prompts': 1 }),
  );
  assert.equal(noKey.records[0]?.status, 401);
  assert.match(noKey.records[0]?.errorBodyExcerpt ?? '', /x-api-key/);
  // The key from the variable Anthropic's SDKs read, in its own header: accepted.
  const fromEnv = settingsFor(
    'anthropic-messages',
    'anthropic-env-key-',
    { 'api-key': undefined, 'num-prompts': 1 },
    { ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: 'not-this-one' },
  );
  assert.equal(fromEnv.apiKey.source, '$ANTHROPIC_API_KEY');
  assert.equal((await run(fromEnv)).records[0]?.outcome, 'ok');
});

test('bodies: max_tokens / max_output_tokens, no ignore_eos or stream_options, --extra-body last', () => {
  const sample = { prompt: 'Hello there', promptTokens: 2, outputTokens: 7, sourceId: '0' };
  const options: Omit<PayloadOptions, 'protocol'> = {
    model: 'm',
    chatContent: 'string',
    maxTokensField: 'max_completion_tokens',
    ignoreEos: true,
    includeUsage: true,
    temperature: 0,
    extraBody: { top_p: 0.5 },
  };
  assert.deepEqual(buildPayload(sample, { ...options, protocol: 'anthropic-messages' }), {
    model: 'm',
    max_tokens: 7,
    messages: [{ role: 'user', content: 'Hello there' }],
    temperature: 0,
    stream: true,
    top_p: 0.5,
  });
  assert.deepEqual(buildPayload(sample, { ...options, protocol: 'openai-responses' }), {
    model: 'm',
    input: 'Hello there',
    temperature: 0,
    max_output_tokens: 7,
    stream: true,
    top_p: 0.5,
  });
  const parts = buildPayload(sample, { ...options, protocol: 'openai-responses', chatContent: 'parts' });
  assert.deepEqual(parts['input'], [
    { role: 'user', content: [{ type: 'input_text', text: 'Hello there' }] },
  ]);
});

test('a shared system prompt goes where each protocol keeps one, before the prompt', () => {
  const sample = {
    prompt: 'Hello there',
    promptTokens: 5,
    outputTokens: 7,
    sourceId: '0',
    systemPrompt: 'be brief now',
  };
  const options: Omit<PayloadOptions, 'protocol'> = {
    model: 'm',
    chatContent: 'string',
    maxTokensField: 'max_completion_tokens',
    ignoreEos: false,
    includeUsage: true,
    extraBody: {},
  };
  const chat = buildPayload(sample, { ...options, protocol: 'openai-chat' });
  assert.deepEqual(chat['messages'], [
    { role: 'system', content: 'be brief now' },
    { role: 'user', content: 'Hello there' },
  ]);
  const parts = buildPayload(sample, { ...options, protocol: 'openai-chat', chatContent: 'parts' });
  assert.deepEqual((parts['messages'] as unknown[])[0], {
    role: 'system',
    content: [{ type: 'text', text: 'be brief now' }],
  });
  assert.equal(
    buildPayload(sample, { ...options, protocol: 'openai-completions' })['prompt'],
    'be brief now\n\nHello there',
  );
  const messages = buildPayload(sample, { ...options, protocol: 'anthropic-messages' });
  assert.equal(messages['system'], 'be brief now');
  assert.deepEqual(messages['messages'], [{ role: 'user', content: 'Hello there' }]);
  const responses = buildPayload(sample, { ...options, protocol: 'openai-responses' });
  assert.equal(responses['instructions'], 'be brief now');
  assert.equal(responses['input'], 'Hello there');
});

test("a session's later turn keeps the shared system message first, the history after it", () => {
  const turn = {
    prompt: 'and then?',
    promptTokens: 5,
    outputTokens: 3,
    sourceId: 's-1',
    systemPrompt: 'be brief',
  };
  const body = JSON.parse(
    sessionTurnBody(
      turn,
      [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ],
      {
        protocol: 'openai-chat',
        model: 'm',
        chatContent: 'string',
        maxTokensField: 'max_completion_tokens',
        ignoreEos: false,
        includeUsage: true,
        extraBody: {},
      },
    ).toString(),
  ) as { messages: Array<{ role: string; content: string }> };
  assert.deepEqual(
    body.messages.map((m) => `${m.role}: ${m.content}`),
    ['system: be brief', 'user: hi', 'assistant: hello', 'user: and then?'],
  );
});
test('endpoints default per backend, /v1 is never doubled, and --endpoint picks the backend', () => {
  const local = { host: '127.0.0.1', port: 8000 };
  assert.equal(
    resolveTarget({ ...local, backend: 'anthropic-messages', baseUrl: 'https://api.example.com/v1' }).url,
    'https://api.example.com/v1/messages',
  );
  assert.equal(
    resolveTarget({ ...local, backend: 'openai-responses' }).url,
    'http://127.0.0.1:8000/v1/responses',
  );
  assert.equal(resolveTarget({ ...local, endpoint: '/v1/messages' }).backend, 'anthropic-messages');
  assert.equal(resolveTarget({ ...local, endpoint: '/v1/responses' }).backend, 'openai-responses');
  assert.throws(
    () => resolveTarget({ ...local, backend: 'openai-chat', endpoint: '/v1/messages' }),
    /is the messages endpoint, not a chat endpoint.*--backend anthropic-messages/s,
  );
  assert.throws(
    () => resolveTarget({ ...local, backend: 'openai-responses', endpoint: '/v1/completions' }),
    /--backend openai for that endpoint/,
  );
  assert.throws(
    () => resolveTarget({ ...local, backend: 'anthropic-messages', endpoint: '/generate' }),
    /not a messages endpoint/,
  );
});

test('--backend anthropic-messages --endpoint /v1/chat/completions is named before anything is sent', async () => {
  const hitsBefore = counterHits;
  const result = await bench(
    [
      '--backend',
      'anthropic-messages',
      '--endpoint',
      '/v1/chat/completions',
      '--base-url',
      counterUrl,
      '--api-key',
      KEY,
      '--model',
      DEFAULT_MODEL_NAME,
      '--num-prompts',
      '2',
      '--no-records',
    ],
    cleanEnv(),
  );
  assert.equal(result.code, 2, result.stderr);
  assert.match(
    result.stderr,
    /--backend anthropic-messages sends an Anthropic Messages body.*\/v1\/chat\/completions is the chat endpoint.*422.*--backend openai-chat/s,
  );
  assert.equal(counterHits, hitsBefore, 'nothing was sent');
});

test('bench --backend anthropic-messages --ignore-eos: warns once that lengths are the model’s own, runs', async () => {
  const result = await bench(
    [
      '--backend',
      'anthropic-messages',
      '--base-url',
      `${sim.url}/v1`,
      '--api-key',
      KEY,
      '--model',
      DEFAULT_MODEL_NAME,
      '--ignore-eos',
      '--dataset-name',
      'random',
      '--random-input-len',
      '16',
      '--random-output-len',
      '6',
      '--num-prompts',
      '3',
      '--no-records',
      '--disable-tqdm',
    ],
    cleanEnv(),
  );
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    /target: http:\/\/127\.0\.0\.1:\d+\/v1\/messages \(backend anthropic-messages\)/,
  );
  const warnings =
    result.stderr.match(/--ignore-eos has no equivalent in --backend anthropic-messages/g) ?? [];
  assert.equal(warnings.length, 1, result.stderr);
  assert.match(result.stderr, /output lengths are the model's own/);
  assert.match(result.stdout, /Successful requests:\s+3\b/);
});
