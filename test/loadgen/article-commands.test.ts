// The article's routine (../shared/seed: smoke 5 prompts, then the full run, from a bench_config.json with its
// exact keys), against the simulator directly and through a tokenmeter gateway. The simulator requires the key the
// article puts in TAOTOKEN_API_KEY; the tokenizer is a real Hugging Face tokenizer folder, as the article's is.
// Sizes are cut down (12 prompts at 40 req/s, 1 ms per token) to keep the suite fast.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { BUNDLED_SHAREGPT_SAMPLE } from '../../loadgen/bench/load-dataset.js';
import { parseRecordsJsonl } from '../../loadgen/bench/records-file.js';
import { DEFAULT_MODEL_NAME } from '../../src/sim/config.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { bench, cleanEnv, scratchDir, writeConfig } from './helpers/bench-cli.js';
import { exactTiming, qwenTokenizerDir } from './helpers/bench-fixtures.js';

const KEY = 'sk-article-test';
let sim: RunningSimulator;
let gateway: TestGateway;

before(async () => {
  sim = await startSimulator({ seed: 3, apiKey: KEY, timing: exactTiming(5, 1) });
  gateway = await startGateway(
    {
      upstreams: [{ name: 'sim', baseUrl: `${sim.url}/v1`, keyEnv: 'SIM_UPSTREAM_KEY' }],
      gatewayKeys: ['gw-key'],
    },
    { SIM_UPSTREAM_KEY: KEY },
  );
});
after(async () => {
  await gateway.close();
  await sim.close();
});

/** One summary row as vLLM prints it: `{:<40} {:<10}`. */
function row(label: string, value: string): string {
  return `${label.padEnd(40)} ${value.padEnd(10)}\n`;
}

function articleConfig(baseUrl: string): Record<string, unknown> {
  return {
    backend: 'openai-chat',
    base_url: baseUrl,
    api_key_env: 'TAOTOKEN_API_KEY',
    model: DEFAULT_MODEL_NAME,
    tokenizer: qwenTokenizerDir(),
    dataset_path: BUNDLED_SHAREGPT_SAMPLE,
    dataset_name: 'sharegpt',
    num_prompts: 12,
    request_rate: 40,
    max_concurrency: 32,
    trust_remote_code: true,
  };
}

for (const [where, url, key] of [
  ['the simulator directly', () => sim.url, KEY],
  ['a tokenmeter gateway', () => `${gateway.url}/v1`, 'gw-key'],
] as const) {
  test(`article: smoke then full run against ${where}, from bench_config.json`, async () => {
    const dir = scratchDir();
    const config = writeConfig(dir, articleConfig(url()));
    const env = cleanEnv({ TAOTOKEN_API_KEY: key });

    const smoke = await bench(['--config', config, '--smoke', '--result-dir', dir], env);
    assert.equal(smoke.code, 0, smoke.stderr + smoke.stdout);
    assert.ok(smoke.stdout.includes(row('Successful requests:', '5')));
    assert.match(smoke.stdout, /Smoke test passed: 5 of 5/);
    assert.match(smoke.stderr, /--trust-remote-code is accepted and changes nothing/);
    assert.match(smoke.stderr, /tokenizer: models/); // the folder's name

    const full = await bench(
      ['--config', config, '--num-prompts', '8', '--save-result', '--result-dir', dir],
      env,
    );
    assert.equal(full.code, 0, full.stderr + full.stdout);
    assert.match(full.stdout, /={12} Serving Benchmark Result ={12}/);
    assert.ok(full.stdout.includes(row('Successful requests:', '8')), 'the flag overrode num_prompts 12');
    assert.ok(full.stdout.includes(row('Maximum request concurrency:', '32')));
    assert.ok(full.stdout.includes(row('Request rate configured (RPS):', '40.00')));
    const files = readdirSync(dir);
    const result = files.find((f) => /^openai-chat-40\.0qps-concurrency32-sim-7b-\d{8}-\d{6}\.json$/.test(f));
    assert.ok(result !== undefined, `vLLM-style result file among ${files.join(', ')}`);
    const json = JSON.parse(readFileSync(join(dir, result), 'utf8')) as Record<string, unknown>;
    assert.equal(json['completed'], 8);
    // vLLM's rule: --tokenizer as given; the one that counted (the folder's name) under tokenmeter.
    assert.equal(json['tokenizer_id'], qwenTokenizerDir());
    assert.equal((json['tokenmeter'] as Record<string, unknown>)['tokenizer'], 'models');
    const records = parseRecordsJsonl(
      readFileSync(join(dir, result.replace(/\.json$/, '.records.jsonl')), 'utf8'),
    );
    assert.equal(records.length, 8);
    assert.ok(records.every((r) => r.outcome === 'ok' && r.outputTokensSource === 'usage'));
  });
}

test('through the gateway, its records give the gateway-side timings beside the client ones', async () => {
  const dir = scratchDir();
  const before = gateway.records.length;
  const prefix = 'gw-compare-';
  const run = await bench(
    [
      '--base-url',
      gateway.url,
      '--api-key',
      'gw-key',
      '--num-prompts',
      '4',
      '--request-id-prefix',
      prefix,
      '--no-records',
    ],
    cleanEnv(),
  );
  assert.equal(run.code, 0, run.stderr);
  const lines = gateway.records.slice(before).map((r) => JSON.stringify(r));
  const file = join(dir, 'gateway.jsonl');
  (await import('node:fs')).writeFileSync(file, `${lines.join('\n')}\n`);
  const again = await bench(
    [
      '--base-url',
      gateway.url,
      '--api-key',
      'gw-key',
      '--num-prompts',
      '4',
      '--request-id-prefix',
      prefix,
      '--no-records',
      '--gateway-records',
      file,
    ],
    cleanEnv(),
  );
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /Client vs tokenmeter gateway/);
  assert.ok(again.stdout.includes(`${'Requests matched by x-request-id:'.padEnd(40)} 4`));
});
