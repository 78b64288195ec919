// docs/comparing.md's mirroring configuration is one the gateway accepts, and routes as the page says.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { resolveConfig } from '../../src/gateway/config/config-resolve.js';
import { validateConfig } from '../../src/gateway/config/config-validate.js';
import { ModelRoutes } from '../../src/gateway/request-path/model-routes.js';
import { codeBlocks } from '../helpers/doc-code-blocks.js';

const DOC = new URL('../../../docs/comparing.md', import.meta.url);

test("docs/comparing.md's configuration is valid and mirrors qwen to the hosted upstream", async () => {
  const text = await readFile(DOC, 'utf8');
  // The block sits in a list item: its lines are indented by three spaces.
  const blocks = codeBlocks(text, 'json').map((block) => block.replace(/^ {3}/gm, ''));
  assert.equal(blocks.length, 1);
  const config = await resolveConfig(validateConfig(JSON.parse(blocks[0] ?? '')), {
    TAOTOKEN_API_KEY: 'sk-test',
  });
  const route = new ModelRoutes(config.upstreams).route('qwen');
  assert.equal(route.upstream.name, 'local');
  assert.equal(route.mirror?.upstream.name, 'hosted');
  assert.equal(route.mirror?.fraction, 0.2);
  assert.equal(route.mirror?.upstream.base.apiPrefix, '/api/v1');
});
