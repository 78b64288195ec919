// --config bench_config.json: the article's keys map to flags, typed flags win, unknown keys are named.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BENCH_OPTIONS } from '../../src/cli/bench-options.js';
import { parseCommandLine, withConfigFile } from '../../src/shared/option-schema.js';
import { scratchDir, writeConfig } from './helpers/bench-cli.js';

function merged(config: Record<string, unknown>, argv: string[]) {
  const path = writeConfig(scratchDir(), config);
  return withConfigFile(
    parseCommandLine('bench', BENCH_OPTIONS, ['--config', path, ...argv], {}, true),
    BENCH_OPTIONS,
  );
}

test("the article's keys become flags, and typed flags override the file", () => {
  const options = merged(
    {
      backend: 'openai-chat',
      base_url: 'https://taotoken.net/api',
      api_key_env: 'TAOTOKEN_API_KEY',
      num_prompts: 500,
      request_rate: 1,
      max_concurrency: 32,
      trust_remote_code: true,
      dataset_name: 'sharegpt',
    },
    ['--num-prompts', '5'],
  );
  assert.equal(options['base-url'], 'https://taotoken.net/api');
  assert.equal(options['api-key-env'], 'TAOTOKEN_API_KEY');
  assert.equal(options['num-prompts'], 5);
  assert.equal(options['request-rate'], 1);
  assert.equal(options['max-concurrency'], 32);
  assert.equal(options['trust-remote-code'], true);
});

test('unknown keys and wrong types are named', () => {
  assert.throws(() => merged({ num_prompt: 5 }, []), /unknown key "num_prompt". Did you mean "num_prompts"/);
  assert.throws(() => merged({ num_prompts: 'many' }, []), /"num_prompts" must be a number/);
  assert.throws(() => merged({ backend: 'tgi' }, []), /"backend" must be one of openai-chat, openai, vllm/);
  assert.equal(merged({ request_rate: 'inf' }, [])['request-rate'], Number.POSITIVE_INFINITY);
});
