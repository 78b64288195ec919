// The examples in docs/simulator.md must run: its config file resolves, and every flag its tables and worked
// example name is one `tokenmeter sim` accepts.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { simCommand } from '../../src/cli/sim-command.js';
import { resolveSimConfig, type SimOptions } from '../../src/sim/config.js';
import { kvCapacity } from '../../src/sim/kv-capacity.js';
import { codeBlocks } from '../helpers/doc-code-blocks.js';

const DOC = new URL('../../../docs/simulator.md', import.meta.url);

test('the config file example in docs/simulator.md resolves', async () => {
  const text = await readFile(DOC, 'utf8');
  const [json] = codeBlocks(text, 'json');
  const config = resolveSimConfig(JSON.parse(json ?? '') as SimOptions);
  assert.equal(kvCapacity(config).tokens, 16_384);
  assert.equal(config.kv.enablePrefixCaching, true);
});

test('every flag docs/simulator.md gives to `tokenmeter sim` exists', async () => {
  const text = await readFile(DOC, 'utf8');
  const known = new Set(simCommand.options.map((o) => o.name));
  const simLines = text.split('\n').filter((l) => /tokenmeter sim /.test(l));
  const tableFlags = [...text.matchAll(/^\| `--([a-z-]+)/gm)].map((m) => m[1] as string);
  const commandFlags = simLines.flatMap((l) => [...l.matchAll(/ --([a-z-]+)/g)].map((m) => m[1] as string));
  assert.ok(commandFlags.includes('kv-cache-tokens') && tableFlags.includes('enable-prefix-caching'));
  for (const flag of [...tableFlags, ...commandFlags]) assert.ok(known.has(flag), `--${flag} is a sim flag`);
});
