// Errors say why, before the run when they can be known: a backend/endpoint mismatch (422 in vLLM) and an unset
// key variable ("Bearer None" in vLLM) stop the command without sending anything; a 401 and a 404 keep the
// upstream's body and a hint. A counting server in front proves nothing was sent.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { bench, cleanEnv } from './helpers/bench-cli.js';
import { exactTiming } from './helpers/bench-fixtures.js';

let sim: RunningSimulator;
let counter: Server;
let counterUrl = '';
let hits = 0;

before(async () => {
  sim = await startSimulator({ seed: 5, apiKey: 'right-key', chatOnly: true, timing: exactTiming(5, 1) });
  counter = createServer((_req, res) => {
    hits++;
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
  counterUrl = `http://127.0.0.1:${(counter.address() as AddressInfo).port}`;
});
after(async () => {
  await sim.close();
  await new Promise((resolve) => counter.close(resolve));
});

const common = ['--num-prompts', '2', '--no-records', '--model', 'tokenmeter/sim-7b'];

test('a backend/endpoint mismatch is named before the run (vLLM would get 422)', async () => {
  const run = await bench(
    ['--backend', 'vllm', '--endpoint', '/v1/chat/completions', '--base-url', counterUrl, ...common],
    cleanEnv(),
  );
  assert.equal(run.code, 2);
  assert.match(
    run.stderr,
    /--backend vllm sends a completions body.*chat endpoint.*422.*--backend openai-chat/s,
  );
  assert.equal(hits, 0);
});

test('an unset key variable is named instead of sending "Bearer None"', async () => {
  const run = await bench(
    ['--api-key-env', 'TAOTOKEN_API_KEY', '--base-url', counterUrl, ...common],
    cleanEnv(),
  );
  assert.equal(run.code, 1);
  assert.match(run.stderr, /TAOTOKEN_API_KEY is not set/);
  const empty = await bench(['--api-key', '', '--base-url', counterUrl, ...common], cleanEnv());
  assert.equal(empty.code, 1);
  assert.match(empty.stderr, /--api-key is empty/);
  assert.equal(hits, 0);
});

test('401 keeps the upstream body and says what to check', async () => {
  const run = await bench(['--api-key', 'wrong-key', '--base-url', sim.url, ...common], cleanEnv());
  assert.equal(run.code, 1);
  assert.match(run.stdout, /http_error: 2 requests \(HTTP 401 x2\)/);
  assert.match(run.stdout, /body: .*Incorrect API key/);
  assert.match(
    run.stdout,
    /hint \(401\): the upstream refused the key that was sent: check that --api-key holds/,
  );
});

test('404 keeps the body naming the paths the server does answer', async () => {
  // Completions backend on a chat-only server: the endpoint exists nowhere.
  const run = await bench(
    ['--backend', 'openai', '--api-key', 'right-key', '--base-url', `${sim.url}/v1`, ...common],
    cleanEnv(),
  );
  assert.equal(run.code, 1);
  assert.match(run.stderr, /requests go to \/v1\/completions \(not \/v1\/v1/);
  assert.match(run.stdout, /HTTP 404 x2/);
  assert.match(run.stdout, /body: .*\/v1\/completions not found; this server answers/);
});

test('proxy variables left in the environment are reported', async () => {
  const run = await bench(
    ['--smoke', '--api-key', 'right-key', '--base-url', sim.url, ...common],
    cleanEnv({ https_proxy: 'http://user:secret@127.0.0.1:7890' }),
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stderr,
    /https_proxy=http:\/\/\*\*\*@127\.0\.0\.1:7890 is set: tokenmeter connects directly/,
  );
  assert.doesNotMatch(run.stderr, /secret/);
});
