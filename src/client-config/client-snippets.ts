// What to paste so each client talks to a tokenmeter gateway. Each snippet names the client's own settings, as
// its documentation (versions in docs/clients.md) describes them; the base URL shape differs per client, which is
// where most "404 /v1/v1" and "404 /messages" reports come from.

import { DOUBLED_V1 } from '../shared/upstream-hints.js';

export interface SnippetContext {
  /** Gateway root without /v1, e.g. http://127.0.0.1:8080. */
  readonly gatewayUrl: string;
  readonly model: string;
  /** Environment variable that holds the gateway key (any value works when the gateway has no keys). */
  readonly keyEnv: string;
}

export interface ClientSnippet {
  readonly client: string;
  readonly where: string;
  readonly text: string;
  readonly note: string;
}

type SnippetBuilder = (c: SnippetContext) => ClientSnippet;

const json = (value: unknown) => JSON.stringify(value, null, 2);

export const CLIENT_SNIPPETS: Readonly<Record<string, SnippetBuilder>> = {
  'claude-code': (c) => ({
    client: 'Claude Code',
    where: '~/.claude/settings.json (or .claude/settings.json in a project)',
    text: json({
      env: { ANTHROPIC_BASE_URL: c.gatewayUrl, ANTHROPIC_API_KEY: `<value of $${c.keyEnv}>` },
      model: c.model,
    }),
    note: 'Claude Code appends /v1/messages itself: the base URL has no /v1. ANTHROPIC_API_KEY goes out as x-api-key; the gateway accepts it as its key and never forwards it. Claude Code asks for 32000 output tokens on top of its prompt, about 20,400 tokens with its tool definitions: if the model\'s context is smaller than that (vLLM --max-model-len), every request is a 400. Raise the context (vLLM --max-model-len 65536, as tokenmeter sim --max-model-len 65536), or add "CLAUDE_CODE_MAX_OUTPUT_TOKENS" to env at the context less about 21,000: "11000" for a 32768-token context. Below about 24,000 tokens of context no value fits.',
  }),
  cline: (c) => ({
    client: 'Cline',
    where: 'Cline settings > API Provider "OpenAI Compatible"',
    text: json({ baseUrl: `${c.gatewayUrl}/v1`, apiKey: `<value of $${c.keyEnv}>`, model: c.model }),
    note: 'In the settings panel these are "Base URL", "API Key" and "Model ID". Cline adds /chat/completions to a base URL that ends in /v1.',
  }),
  codex: (c) => ({
    client: 'Codex CLI',
    where: '~/.codex/config.toml',
    text: [
      `model = "${c.model}"`,
      'model_provider = "tokenmeter"',
      '',
      '[model_providers.tokenmeter]',
      'name = "tokenmeter gateway"',
      `base_url = "${c.gatewayUrl}/v1"`,
      `env_key = "${c.keyEnv}"`,
      'wire_api = "responses"',
    ].join('\n'),
    note: `Codex speaks the Responses API and appends /responses to base_url. The key is read from $${c.keyEnv} (env_key names the variable, not the key).`,
  }),
  'openai-sdk': (c) => ({
    client: 'OpenAI SDK (JavaScript; Python takes the same base_url and api_key)',
    where: 'your code',
    text: [
      "import OpenAI from 'openai';",
      '',
      `const client = new OpenAI({ baseURL: '${c.gatewayUrl}/v1', apiKey: process.env.${c.keyEnv} });`,
      'const stream = await client.chat.completions.create({',
      `  model: '${c.model}',`,
      "  messages: [{ role: 'user', content: 'Hello' }],",
      '  stream: true,',
      '});',
    ].join('\n'),
    note: 'The SDK appends /chat/completions to baseURL, so baseURL ends in /v1 (the gateway also accepts it without).',
  }),
  'anthropic-sdk': (c) => ({
    client: 'Anthropic SDK (JavaScript; Python takes the same base_url and api_key)',
    where: 'your code',
    text: [
      "import Anthropic from '@anthropic-ai/sdk';",
      '',
      `const client = new Anthropic({ baseURL: '${c.gatewayUrl}', apiKey: process.env.${c.keyEnv} });`,
      'const message = await client.messages.create({',
      `  model: '${c.model}',`,
      '  max_tokens: 256,',
      "  messages: [{ role: 'user', content: 'Hello' }],",
      '});',
    ].join('\n'),
    note: 'The SDK appends /v1/messages to baseURL, so baseURL has no /v1.',
  }),
  'vllm-bench': (c) => ({
    client: "vLLM's benchmark (benchmark_serving.py or vllm bench serve)",
    where: 'the command line',
    text: [
      `export OPENAI_API_KEY="$${c.keyEnv}"`,
      'python benchmark_serving.py \\',
      '  --backend openai-chat \\',
      `  --base-url ${c.gatewayUrl} \\`,
      '  --endpoint /v1/chat/completions \\',
      `  --model ${c.model} \\`,
      '  --dataset-name sharegpt --dataset-path ShareGPT_V3_unfiltered_cleaned_split.json \\',
      '  --num-prompts 5',
    ].join('\n'),
    note: `The benchmark joins --base-url and --endpoint as they are, so ${DOUBLED_V1.what} (the gateway repairs it); ${DOUBLED_V1.fix}. Same flags work with \`tokenmeter bench\`.`,
  }),
  curl: (c) => ({
    client: 'curl',
    where: 'a shell',
    text: [
      `curl -N ${c.gatewayUrl}/v1/chat/completions \\`,
      `  -H "Authorization: Bearer $${c.keyEnv}" -H 'content-type: application/json' \\`,
      `  -d '{"model": "${c.model}", "messages": [{"role": "user", "content": "Hello"}], "stream": true}'`,
    ].join('\n'),
    note: "-N turns off curl's output buffering so tokens show as they arrive.",
  }),
};

export const CLIENT_NAMES = Object.keys(CLIENT_SNIPPETS);
