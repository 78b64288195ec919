// `tokenmeter bench` failures the doctor can diagnose print the doctor's diagnosis, not a generic hint: the same
// function (src/shared/upstream-hints.ts) given the run's path, model and key source. Each row runs the real CLI
// against a simulator (chat-only, keyed) or, for 422, a scripted upstream answering as vLLM does.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import {
  BENCHMARK_BACKEND_FLAGS,
  hintForUpstreamStatus,
  unservedModelFix,
} from '../../src/shared/upstream-hints.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/run-cli.js';

const MODEL = 'tokenmeter/sim-7b';
const KEY = 'sk-bench-hints';
const SMALL_RUN = [
  '--dataset-name',
  'random',
  '--random-input-len',
  '8',
  '--random-output-len',
  '4',
  '--num-prompts',
  '2',
  '--no-records',
];

let sim: RunningSimulator;
let vllm422: Server;

before(async () => {
  sim = await startSimulator({ timing: { ttftMs: 2, itlMs: 1, jitter: 0 }, chatOnly: true, apiKey: KEY });
  // vLLM's answer to a body its chat endpoint cannot parse.
  vllm422 = createServer((req, res) => {
    req.resume();
    res.writeHead(422, { 'content-type': 'application/json' });
    res.end(
      '{"object":"error","message":"[{\'type\': \'missing\', \'loc\': (\'body\', \'messages\')}]","code":422}',
    );
  });
  await new Promise<void>((resolve) => vllm422.listen(0, '127.0.0.1', resolve));
});

after(async () => {
  await sim.close();
  await new Promise((resolve) => vllm422.close(resolve));
});

async function bench(args: string[], key = KEY): Promise<string> {
  const result = await runCli(['bench', ...args, '--api-key-env', 'BENCH_KEY', ...SMALL_RUN], {
    PATH: process.env['PATH'] ?? '',
    BENCH_KEY: key,
  });
  assert.equal(result.code, 1, `every request failed: exit 1\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** The hint line bench printed for `status`, and the first error body it printed. */
function printed(stdout: string, status: number): { hint: string; body: string } {
  const hint = new RegExp(`  hint \\(${status}\\): (.*)`).exec(stdout)?.[1];
  const body = / {2}body: (.*)/.exec(stdout)?.[1];
  assert.ok(hint !== undefined && body !== undefined, stdout);
  return { hint, body };
}

test('404 on a model name: the model is named as not served, with where to find the served IDs', async () => {
  const stdout = await bench(['--base-url', sim.url, '--model', 'qwen-32b']);
  const { hint, body } = printed(stdout, 404);
  assert.equal(
    hint,
    hintForUpstreamStatus(404, {
      path: '/v1/chat/completions',
      model: 'qwen-32b',
      keySource: '$BENCH_KEY',
      errorText: body,
    }),
  );
  assert.match(hint, /^the model 'qwen-32b' is not served here: send a model ID that GET \/v1\/models lists/);
  // The doctor, which can list the served models, says the same with the ID filled in.
  const doctor = await runCli(
    ['doctor', '--base-url', sim.url, '--model', 'qwen-32b', '--api-key-env', 'K'],
    {
      PATH: process.env['PATH'] ?? '',
      K: KEY,
    },
  );
  assert.ok(doctor.stdout.includes(`fix: ${unservedModelFix('qwen-32b', MODEL)}`), doctor.stdout);
});

test('404 from a chat-only endpoint: the flags the doctor prints for the same finding', async () => {
  const stdout = await bench(['--base-url', sim.url, '--backend', 'vllm', '--model', MODEL]);
  const { hint } = printed(stdout, 404);
  assert.match(hint, /^this endpoint may serve only chat/);
  assert.ok(hint.includes(BENCHMARK_BACKEND_FLAGS.chat));
  const doctor = await runCli(['doctor', '--base-url', sim.url, '--backend', 'vllm', '--api-key-env', 'K'], {
    PATH: process.env['PATH'] ?? '',
    K: KEY,
  });
  assert.ok(doctor.stdout.includes(`fix: use ${BENCHMARK_BACKEND_FLAGS.chat}`), doctor.stdout);
});

test('401: the key was sent and refused, naming where it came from', async () => {
  const stdout = await bench(['--base-url', sim.url, '--model', MODEL], 'sk-wrong');
  const { hint } = printed(stdout, 401);
  assert.equal(
    hint,
    'the upstream refused the key that was sent: check that $BENCH_KEY holds the key this endpoint issued (no quotes, no spaces, not "None")',
  );
  assert.ok(!stdout.includes('sk-wrong'), 'the key is never printed');
});

test('422 from the chat endpoint: the body does not fit, with the flags that send a chat body', async () => {
  const url = `http://127.0.0.1:${(vllm422.address() as AddressInfo).port}`;
  const stdout = await bench(['--base-url', url, '--model', MODEL]);
  const { hint } = printed(stdout, 422);
  assert.equal(
    hint,
    `the body does not fit the chat endpoint: send "messages", not "prompt" (benchmark: ${BENCHMARK_BACKEND_FLAGS.chat})`,
  );
});
