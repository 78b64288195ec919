// Anthropic Messages and OpenAI Responses through the gateway, against the simulator: accepted with and without
// /v1, routed by model, timed at the first text delta (never at the lifecycle events the simulator writes a whole
// ttftMs earlier), usage and finish reason read from each protocol's own fields, errors inside a 200 recognised,
// and the upstream key injected the way each protocol expects. Tolerances: see helpers/sim-truth.ts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { startSimulator } from '../../src/sim/index.js';
import { startGateway, type TestGateway } from './helpers/gateway.js';
import { assertStreamMatchesTruth, FINISH_NAMES } from './helpers/sim-truth.js';
import { startUpstream } from './helpers/upstream.js';

const MODEL = 'tokenmeter/sim-7b';
const MAX_TOKENS = 12;
const SIM_KEY = 'sim-upstream-key';
// Exact timing (no jitter) and answers that never end on their own, so every answer is MAX_TOKENS long.
const TIMING = { ttftMs: 150, prefillMsPerToken: 0, itlMs: 20, jitter: 0, eosMedianTokens: 100_000 };

type Sim = Awaited<ReturnType<typeof startSimulator>>;
let sim: Sim;
let gateway: TestGateway;

const PROTOCOLS = [
  {
    protocol: 'anthropic-messages',
    endpoint: 'messages',
    body: (stream: boolean) => ({
      model: MODEL,
      max_tokens: MAX_TOKENS,
      stream,
      messages: [{ role: 'user', content: 'Say something.' }],
    }),
  },
  {
    protocol: 'openai-responses',
    endpoint: 'responses',
    body: (stream: boolean) => ({
      model: MODEL,
      max_output_tokens: MAX_TOKENS,
      stream,
      input: 'Say something.',
    }),
  },
] as const;

before(async () => {
  sim = await startSimulator({ apiKey: SIM_KEY, timing: TIMING });
  gateway = await startGateway(
    { upstreams: [{ name: 'sim', baseUrl: `${sim.url}/v1`, keyEnv: 'SIM_KEY' }], records: { gaps: true } },
    { SIM_KEY },
  );
});
after(async () => {
  await gateway.close();
  await sim.close();
});

async function post(
  gw: TestGateway,
  path: string,
  id: string,
  body: object,
  headers: Record<string, string> = {},
) {
  const count = gw.records.length;
  const response = await request(`${gw.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-request-id': id,
      // Client credentials: the gateway must drop them and send its own upstream key.
      'x-api-key': 'client-key-never-forwarded',
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await response.body.text();
  const record = (await gw.recordsAfter(count + 1)).find((r) => r.requestId === id);
  assert.ok(record, `a record for ${id}`);
  return { status: response.statusCode, text, headers: response.headers, record };
}

for (const { protocol, endpoint, body } of PROTOCOLS) {
  test(`${endpoint} streamed: TTFT at the first text delta, gaps, usage and finish match the simulator`, async (t) => {
    for (const path of [`/v1/${endpoint}`, `/${endpoint}`]) {
      const id = `${endpoint}-stream${path.startsWith('/v1') ? '' : '-no-v1'}`;
      const { status, text, record } = await post(gateway, path, id, body(true));
      assert.equal(status, 200, text);
      const truth = sim.truth(id);
      assert.ok(truth);
      const errors = assertStreamMatchesTruth(record, truth);
      t.diagnostic(
        `${protocol} ${path}: TTFT ${record.ttftMs} ms, lag behind the simulator's first write ${errors.ttftLagMs.toFixed(3)} ms, worst gap error ${errors.worstGapErrorMs.toFixed(3)} ms`,
      );
      // The lifecycle events went out with the headers, ~150 ms before the first text: TTFT is not theirs.
      assert.ok((record.ttftMs ?? 0) >= TIMING.ttftMs, `TTFT ${record.ttftMs} ms >= ${TIMING.ttftMs} ms`);
      assert.equal(record.outputTokens, MAX_TOKENS);
      assert.equal(record.outputTokensSource, 'usage');
      assert.equal(record.finishReason, FINISH_NAMES[protocol]?.[truth.finishReason ?? '']);
      assert.equal(record.outcome, 'ok');
      assert.equal(record.stream, true);
      assert.equal(record.usageInjected, false, 'usage injection is for OpenAI chat/completions only');
      assert.equal(record.pathSent, `/v1/${endpoint}`);
      assert.deepEqual(record.pathFixes, path.startsWith('/v1') ? [] : ['missing_v1']);
      assert.equal(record.upstream, 'sim');
      assert.equal(record.modelSent, MODEL);
    }
  });

  test(`${endpoint} not streamed: usage and finish reason read from the ${protocol} body`, async () => {
    const id = `${endpoint}-json`;
    const { status, text, record } = await post(gateway, `/v1/${endpoint}`, id, body(false));
    assert.equal(status, 200, text);
    const truth = sim.truth(id);
    assert.ok(truth);
    assert.equal(record.outcome, 'ok');
    assert.equal(record.ttftMs, null, 'a JSON answer has no first token');
    assert.equal(record.outputTokens, truth.completionTokens);
    assert.equal(record.outputTokensSource, 'usage');
    assert.equal(record.promptTokens, truth.promptTokens);
    assert.equal(record.finishReason, FINISH_NAMES[protocol]?.[truth.finishReason ?? '']);
  });

  test(`${endpoint}: an error inside a 200 (stream and JSON) is upstream_error_body`, async (t) => {
    const faulty = await startSimulator({ timing: TIMING, faults: { errorBodyRate: 1 } });
    t.after(() => faulty.close());
    const gw = await startGateway({ upstreams: [{ name: 'faulty', baseUrl: faulty.url, keyless: true }] });
    t.after(() => gw.close());
    for (const stream of [true, false]) {
      const { status, record } = await post(
        gw,
        `/v1/${endpoint}`,
        `${endpoint}-fault-${stream}`,
        body(stream),
      );
      assert.equal(status, 200);
      assert.equal(record.outcome, 'upstream_error_body', `stream ${stream}`);
      assert.match(record.error ?? '', /model overloaded/);
      assert.equal(record.ttftMs, null);
    }
  });
}

test('upstream auth: x-api-key (not Bearer) for messages, anthropic-version added or kept; Bearer for responses', async (t) => {
  const upstream = await startUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  t.after(() => upstream.close());
  const gw = await startGateway(
    { upstreams: [{ name: 'u', baseUrl: upstream.url, keyEnv: 'UP_KEY' }] },
    { UP_KEY: 'upstream-secret' },
  );
  t.after(() => gw.close());
  const client = { authorization: 'Bearer client-bearer-never-forwarded' };
  await post(gw, '/v1/messages', 'auth-messages', { model: MODEL }, client);
  await post(
    gw,
    '/messages',
    'auth-messages-version',
    { model: MODEL },
    { 'anthropic-version': '2024-01-01' },
  );
  await post(gw, '/v1/responses', 'auth-responses', { model: MODEL }, client);
  const [messages, versioned, responses] = upstream.requests;
  assert.equal(messages?.headers['x-api-key'], 'upstream-secret');
  assert.equal(messages?.headers.authorization, undefined, 'no Bearer for Anthropic upstreams');
  assert.equal(messages?.headers['anthropic-version'], '2023-06-01');
  assert.equal(versioned?.headers['anthropic-version'], '2024-01-01', "the client's version is kept");
  assert.equal(versioned?.url, '/v1/messages');
  assert.equal(responses?.headers.authorization, 'Bearer upstream-secret');
  assert.equal(responses?.headers['x-api-key'], undefined, "the client's x-api-key is never forwarded");
  assert.equal(responses?.headers['anthropic-version'], undefined);
  for (const r of upstream.requests) {
    const all = JSON.stringify(r.headers);
    assert.doesNotMatch(all, /client-(key|bearer)-never-forwarded/);
  }
  assert.equal(messages?.body.toString('utf8'), JSON.stringify({ model: MODEL }), 'body unchanged');
});

test('the simulator, which checks x-api-key on /v1/messages, accepts the injected key', async () => {
  // The module's gateway talks to a simulator started with apiKey: every 200 above proves the key arrived; a
  // request straight to the simulator with the client's key proves the simulator really checks it.
  const direct = await request(`${sim.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'client-key-never-forwarded' },
    body: JSON.stringify(PROTOCOLS[0].body(false)),
  });
  await direct.body.text();
  assert.equal(direct.statusCode, 401);
});
