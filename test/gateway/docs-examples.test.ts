// The examples in docs/configuration.md must run: its config file examples validate and resolve.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { resolveConfig } from '../../src/gateway/config/config-resolve.js';
import { validateConfig } from '../../src/gateway/config/config-validate.js';
import { codeBlocks } from '../helpers/doc-code-blocks.js';

const DOC = new URL('../../../docs/configuration.md', import.meta.url);

test('the configuration example in docs/configuration.md is valid', async () => {
  const text = await readFile(DOC, 'utf8');
  const blocks = codeBlocks(text, 'json');
  // The first block is the full example; the mirroring section's block must validate too.
  assert.equal(blocks.length, 2);
  const env = { TAOTOKEN_API_KEY: 'sk-test' };
  const mirrored = await resolveConfig(validateConfig(JSON.parse(blocks[1] ?? '')), env);
  assert.equal(mirrored.upstreams[1]?.base.apiPrefix, '/api/v1');
  const config = await resolveConfig(validateConfig(JSON.parse(blocks[0] ?? '')), {
    TAOTOKEN_API_KEY: 'sk-test',
    TOKENMETER_GATEWAY_KEYS: 'one,two',
  });
  assert.equal(config.upstreams.length, 2);
  assert.equal(config.upstreams[1]?.base.apiPrefix, '/api/v1');
  assert.equal(config.gatewayKeys.length, 2);
});
