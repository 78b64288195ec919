// tokenmeter print-config: a snippet for every client, /v1 where that client needs it, exit 2 for an unknown one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLIENT_NAMES } from '../../src/client-config/client-snippets.js';
import { runCli } from '../helpers/run-cli.js';

async function printed(client: string, ...args: string[]) {
  const res = await runCli(['print-config', client, '--gateway-url', 'http://127.0.0.1:9000/v1/', ...args]);
  assert.equal(res.code, 0, res.stderr);
  return res.stdout;
}

function jsonBlock(text: string): Record<string, unknown> {
  return JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)) as Record<string, unknown>;
}

test('every client gets a snippet; the base URL has /v1 exactly where that client needs it', async () => {
  assert.deepEqual(CLIENT_NAMES, [
    'claude-code',
    'cline',
    'codex',
    'openai-sdk',
    'anthropic-sdk',
    'vllm-bench',
    'curl',
  ]);
  const claude = jsonBlock(await printed('claude-code', '--model', 'qwen-coder', '--key-env', 'GW_KEY'));
  assert.deepEqual(claude, {
    env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9000', ANTHROPIC_API_KEY: '<value of $GW_KEY>' },
    model: 'qwen-coder',
  });
  const cline = jsonBlock(await printed('cline'));
  assert.equal(cline['baseUrl'], 'http://127.0.0.1:9000/v1');
  assert.deepEqual(Object.keys(cline), ['baseUrl', 'apiKey', 'model']);
  const codex = await printed('codex', '--key-env', 'GW_KEY');
  assert.match(codex, /^base_url = "http:\/\/127\.0\.0\.1:9000\/v1"$/m);
  assert.match(codex, /^env_key = "GW_KEY"$/m);
  assert.match(codex, /^wire_api = "responses"$/m);
  assert.match(await printed('openai-sdk'), /baseURL: 'http:\/\/127\.0\.0\.1:9000\/v1'/);
  assert.match(await printed('anthropic-sdk'), /baseURL: 'http:\/\/127\.0\.0\.1:9000'/);
  const bench = await printed('vllm-bench');
  assert.match(bench, /--backend openai-chat/);
  assert.match(bench, /--base-url http:\/\/127\.0\.0\.1:9000 \\/);
  assert.doesNotMatch(bench, /9000\/v1 \\/);
  assert.match(await printed('curl'), /curl -N http:\/\/127\.0\.0\.1:9000\/v1\/chat\/completions/);
});

test('unknown or missing client: exit 2 with the list', async () => {
  const unknown = await runCli(['print-config', 'claud']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /Did you mean 'claude-code'\?/);
  const missing = await runCli(['print-config']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /name one client: claude-code, cline/);
});
