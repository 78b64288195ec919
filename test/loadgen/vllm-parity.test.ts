// vLLM parity, issue 31's items 11 to 13, one row each: the real CLI against a real upstream on port 0 that keeps
// every request it gets and reports a prompt count of its own (as a server applying a chat template does), and
// the row checks the requests sent, the report or the result file against what vLLM's client (pinned commit
// 009e6d4a: serve.py, lib/endpoint_request_func.py, utils/argparse_utils.py) does.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { bench, cleanEnv, scratchDir } from './helpers/bench-cli.js';

interface Captured {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** Tokens the upstream adds to every prompt count: the simulator's chat template is 7. */
const TEMPLATE_TOKENS = 7;

const captured: Captured[] = [];
let server: Server;
let url = '';

before(async () => {
  server = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'up-model', root: 'up-model' }] }));
      return;
    }
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      captured.push({ path: req.url ?? '', headers: req.headers, body });
      const chat = (req.url ?? '').includes('chat');
      // A prompt count of the server's own: one per word of the prompt, plus a template's tokens.
      const messages = body['messages'] as Array<{ content: string }> | undefined;
      const prompt =
        messages === undefined ? String(body['prompt']) : messages.map((m) => m.content).join(' ');
      const promptTokens = prompt.split(/\s+/).filter((w) => w !== '').length + TEMPLATE_TOKENS;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < 3; i++)
        res.write(
          `data: ${JSON.stringify({ choices: [chat ? { index: 0, delta: { content: `w${i} ` } } : { index: 0, text: `w${i} ` }] })}\n\n`,
        );
      res.write(
        `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: 3 } })}\n\n`,
      );
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  requests: Captured[];
  dir: string;
}

async function run(args: string[], dir = scratchDir()): Promise<Run> {
  captured.length = 0;
  const result = await bench(
    ['--base-url', url, '--model', 'org/m', '--num-prompts', '2', '--result-dir', dir, ...args],
    cleanEnv(),
  );
  return { ...result, requests: [...captured], dir };
}

const ok = (r: Run): void => assert.equal(r.code, 0, r.stderr);
const resultFile = (r: Run): string => {
  const name = readdirSync(r.dir).find((f) => f.endsWith('.json'));
  assert.ok(name !== undefined, `a result file in ${readdirSync(r.dir).join(', ')}`);
  return join(r.dir, name);
};
const savedText = (r: Run): string => readFileSync(resultFile(r), 'utf8');
const saved = (r: Run): Record<string, unknown> => JSON.parse(savedText(r)) as Record<string, unknown>;

// Item 13: what vLLM's client sends and writes.

test("13: a completions body carries vLLM's repetition_penalty 1.0 and logprobs null; the flags replace them", async () => {
  const plain = await run(['--backend', 'openai']);
  ok(plain);
  assert.equal(plain.requests[0]?.body['repetition_penalty'], 1);
  assert.ok('logprobs' in (plain.requests[0]?.body ?? {}));
  assert.equal(plain.requests[0]?.body['logprobs'], null);
  const given = await run(['--backend', 'openai', '--logprobs', '2', '--repetition-penalty', '1.1']);
  ok(given);
  assert.equal(given.requests[0]?.body['logprobs'], 2);
  assert.equal(given.requests[0]?.body['repetition_penalty'], 1.1);
  const chat = await run(['--backend', 'openai-chat']);
  ok(chat);
  assert.ok(!('repetition_penalty' in (chat.requests[0]?.body ?? {})), 'vLLM sends neither with chat');
  assert.ok(!('logprobs' in (chat.requests[0]?.body ?? {})));
});

test("13: warm-ups and the ready check carry no x-request-id (as vLLM's); the run's requests do", async () => {
  const r = await run([
    '--num-warmups',
    '2',
    '--ready-check-timeout-sec',
    '5',
    '--request-id-prefix',
    'run-',
  ]);
  ok(r);
  assert.equal(r.requests.length, 5); // ready check, 2 warm-ups, 2 requests
  assert.deepEqual(
    r.requests.map((c) => c.headers['x-request-id']),
    [undefined, undefined, undefined, 'run-0', 'run-1'],
  );
});

test("13: a ramp-up run's result file is named as vLLM names it", async () => {
  const r = await run([
    '--ramp-up-strategy',
    'linear',
    '--ramp-up-start-rps',
    '1',
    '--ramp-up-end-rps',
    '10',
    '--save-result',
  ]);
  ok(r);
  assert.match(resultFile(r), /openai-chat-ramp-up-linear-1qps-10qps-m-\d{8}-\d{6}\.json$/);
});

test("13: vLLM's floats are written as Python writes them (20.0), and tokenizer_id is the model", async () => {
  const r = await run(['--request-rate', '20', '--save-result', '--save-detailed']);
  ok(r);
  const text = savedText(r);
  for (const key of ['request_rate', 'burstiness', 'max_output_tokens_per_s', 'rtfx'])
    assert.match(text, new RegExp(`\\n  "${key}": \\d+\\.\\d+,\\n`), key);
  assert.match(text, /\n {2}"request_rate": 20\.0,\n/);
  assert.match(text, /\n {2}"rtfx": 0\.0,\n/);
  assert.match(text, /\n {2}"num_prompts": 2,\n/, 'integers stay integers');
  const json = saved(r);
  assert.equal(json['tokenizer_id'], 'org/m');
  assert.equal((json['tokenmeter'] as Record<string, unknown>)['tokenizer'], 'builtin');
  const named = await run(['--tokenizer', 'builtin', '--save-result']);
  ok(named);
  assert.equal(saved(named)['tokenizer_id'], 'builtin', '--tokenizer as given, as vLLM');
});

// Item 12: what vLLM's parser takes, taken and honoured.

test('12: underscore spellings (--num_prompts 3 --max_concurrency=1) are the dashed flags', async () => {
  const r = await run(['--num_prompts', '3', '--max_concurrency=1']);
  ok(r);
  assert.equal(r.requests.length, 3);
  assert.match(r.stdout, /\nMaximum request concurrency:\s+1 /);
});

test('12: dotted keys build --extra-body (--extra-body.foo 1, nested, lists with +) and replace a JSON one', async () => {
  const r = await run([
    '--extra-body',
    '{"dropped": true}',
    '--extra-body.foo',
    '1',
    '--extra-body.bar.baz=x',
    '--extra_body.stop+',
    'a,b',
  ]);
  ok(r);
  const sent = r.requests[0]?.body ?? {};
  assert.equal(sent['foo'], 1);
  assert.deepEqual(sent['bar'], { baz: 'x' });
  assert.deepEqual(sent['stop'], ['a', 'b']);
  assert.ok(!('dropped' in sent), 'vLLM gives the dotted keys last: they replace the whole JSON');
});

test('12: a YAML --config, as vllm bench serve takes one (mappings are JSON flags, flags win over it)', async () => {
  const dir = scratchDir();
  const config = join(dir, 'bench.yaml');
  writeFileSync(
    config,
    ['backend: openai', 'num_prompts: 3', 'ignore-eos: true', 'extra-body:', '  foo: 2', 'seed: 4', ''].join(
      '\n',
    ),
  );
  const r = await run(['--config', config, '--seed', '5', '--save-result'], dir);
  ok(r);
  assert.equal(r.requests.length, 2, '--num-prompts 2 typed wins over the file');
  assert.ok(r.requests.every((c) => c.path === '/v1/completions'));
  assert.equal(r.requests[0]?.body['foo'], 2);
  assert.equal(r.requests[0]?.body['ignore_eos'], true);
  const bad = await run(['--config', join(dir, 'missing.yaml')]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--config .*missing\.yaml: /);
});

test('12: --random-batch-size takes a number, says in one line that it changes nothing here', async () => {
  const r = await run(['--random-batch-size', '4']);
  ok(r);
  assert.match(r.stderr, /\nnote: --random-batch-size is accepted and changes nothing: vLLM batches/);
  assert.equal(r.requests.length, 2);
});

test('12: --random-range-ratio as JSON gives input and output lengths their own ratio', async () => {
  const r = await run([
    '--dataset-name',
    'random',
    '--num-prompts',
    '40',
    '--random-input-len',
    '40',
    '--random-output-len',
    '20',
    '--random-range-ratio',
    '{"input":0.3,"output":0.5}',
  ]);
  ok(r);
  const outputs = r.requests.map((c) => c.body['max_completion_tokens'] as number);
  assert.ok(outputs.every((n) => n >= 10 && n <= 30));
  assert.ok(
    outputs.some((n) => n < 14 || n > 26),
    `output lengths beyond 20 +- 30%: ${outputs.join(' ')}`,
  );
  const inputs = r.requests.map(
    (c) => String((c.body['messages'] as Array<{ content: string }>)[0]?.content).split(' ').length,
  );
  assert.ok(
    inputs.every((n) => n >= 28 && n <= 52),
    `input lengths within 40 +- 30%: ${inputs.join(' ')}`,
  );
  const refused = await run(['--random-range-ratio', '{"input":2}']);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /--random-range-ratio must be a number at least 0 and below 1, or JSON/);
});

test("12: --dataset-name custom_mm is refused with a line saying it is vLLM's multimodal set", async () => {
  const r = await run(['--dataset-name', 'custom_mm']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--dataset-name custom_mm is vLLM's multimodal custom dataset/);
  assert.equal(r.requests.length, 0);
});

// Item 11: input tokens as vLLM counts them, side by side with vLLM's own client.

/** What vLLM's chat request function and calculate_metrics printed against `tokenmeter sim` (README.md there). */
const VLLM_CHAT_INPUT = JSON.parse(
  readFileSync(
    new URL('../../../test/loadgen/fixtures/vllm-009e6d4a/results/chat-input-tokens.json', import.meta.url),
    'utf8',
  ),
) as {
  printed: string[];
  total_input_tokens: number;
  client_prompt_lens: number[];
  server_prompt_lens: number[];
};

test("11: with the chat backend, total input tokens are the server's usage, equal to vLLM's; ours beside them", async () => {
  let sim: RunningSimulator | undefined;
  try {
    sim = await startSimulator({});
    const dir = scratchDir();
    const result = await bench(
      [
        ...['--base-url', sim.url, '--model', 'tokenmeter/sim-7b', '--backend', 'openai-chat'],
        ...['--dataset-name', 'random', '--num-prompts', '40', '--seed', '0', '--random-input-len', '32'],
        ...['--random-output-len', '16', '--random-range-ratio', '0.5', '--random-prefix-len', '4'],
        ...['--result-dir', dir, '--save-result', '--save-detailed'],
      ],
      cleanEnv(),
    );
    assert.equal(result.code, 0, result.stderr);
    const line = VLLM_CHAT_INPUT.printed.find((l) => l.startsWith('Total input tokens:'));
    assert.ok(line !== undefined);
    assert.ok(result.stdout.includes(`\n${line}\n`), `vLLM printed "${line}"; bench:\n${result.stdout}`);
    const own = VLLM_CHAT_INPUT.client_prompt_lens.reduce((a, b) => a + b, 0);
    assert.match(result.stdout, new RegExp(`\\nTotal input tokens \\(our tokenizer\\):\\s+${own} `));
    assert.match(result.stdout, /\nRequests with server input counts:\s+40 /);
    const name = readdirSync(dir).find((f) => f.endsWith('.json')) as string;
    const json = JSON.parse(readFileSync(join(dir, name), 'utf8')) as Record<string, unknown>;
    assert.equal(json['total_input_tokens'], VLLM_CHAT_INPUT.total_input_tokens);
    assert.deepEqual(json['input_lens'], VLLM_CHAT_INPUT.server_prompt_lens);
    const tokenmeter = json['tokenmeter'] as Record<string, unknown>;
    assert.equal(tokenmeter['input_tokens_by_tokenizer'], own);
    assert.equal(tokenmeter['requests_with_server_input_count'], 40);
    assert.deepEqual(tokenmeter['input_lens_by_tokenizer'], VLLM_CHAT_INPUT.client_prompt_lens);
  } finally {
    await sim?.close();
  }
});
