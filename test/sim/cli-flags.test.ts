// The KV, prefix-cache and reasoning flags of the real `tokenmeter sim` executable reach the simulator: vLLM's
// start-up line and refusal, the cache's hits and the reasoning part, over HTTP.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request } from 'undici';
import { runCli, startCli, stopCli } from '../helpers/run-cli.js';

test("too small a KV cache for --max-model-len: exit 1 with vLLM's message naming the flags", async () => {
  const result = await runCli(['sim', '--port', '0', '--kv-cache-tokens', '1000']);
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    /max seq len \(4096\) is larger than .* KV cache \(992\)\. Try increasing --kv-cache-tokens or decreasing --max-model-len/,
  );
  assert.doesNotMatch(result.stderr, /at .*\.js:\d+/, 'no stack trace');
});

test('--gpu-memory-utilization, --enable-prefix-caching and --reasoning-tokens take effect', async () => {
  const { child, match } = await startCli(
    [
      'sim',
      '--port',
      '0',
      '--max-model-len',
      '1024',
      '--gpu-memory-utilization',
      '0.646',
      '--enable-prefix-caching',
      '--reasoning-tokens',
      '3',
      '--reasoning-field',
      'reasoning_content',
      '--itl-ms',
      '1',
    ],
    /KV cache size: 4128 tokens \(258 blocks of 16, from gpu-memory-utilization\).*\n/,
  );
  try {
    const url = /listening on (http:\/\/\S+)/.exec(match.input ?? '')?.[1] as string;
    const body = JSON.stringify({
      model: 'tokenmeter/sim-7b',
      messages: [
        {
          role: 'user',
          content: 'A question long enough to fill two blocks of sixteen tokens, at the very least, here.',
        },
      ],
      max_tokens: 5,
      ignore_eos: true,
    });
    const ask = async () => {
      const res = await request(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      return (await res.body.json()) as {
        choices: Array<{ message: Record<string, string> }>;
        usage: {
          prompt_tokens_details: { cached_tokens: number };
          completion_tokens_details: { reasoning_tokens: number };
        };
      };
    };
    const first = await ask();
    const second = await ask();
    assert.equal(first.usage.prompt_tokens_details.cached_tokens, 0);
    assert.ok(second.usage.prompt_tokens_details.cached_tokens >= 16);
    assert.equal(second.usage.completion_tokens_details.reasoning_tokens, 3);
    assert.equal(typeof second.choices[0]?.message['reasoning_content'], 'string');
  } finally {
    assert.equal(await stopCli(child), 0);
  }
});
