// The random and JSONL datasets: exact or ranged seeded lengths; JSONL prompts, malformed lines reported.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { sampleJsonl } from '../../loadgen/datasets/jsonl-dataset.js';
import { lengthRange, sampleRandom } from '../../loadgen/datasets/random-dataset.js';
import { builtinTokenizer } from '../../loadgen/tokenizer/tokenizer.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';

const dir = mkdtempSync(join(tmpdir(), 'tokenmeter-datasets-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('random dataset: exact lengths at ratio 0, uniform within the range otherwise, seeded', () => {
  const fixed = sampleRandom({
    numPrompts: 5,
    seed: 1,
    tokenizer: builtinTokenizer,
    inputLen: 50,
    outputLen: 20,
  });
  for (const r of fixed.requests) {
    assert.equal(r.promptTokens, 50);
    assert.equal(builtinTokenizer.count(r.prompt), 50);
    assert.equal(r.outputTokens, 20);
  }
  assert.deepEqual(lengthRange(100, 0.5, 0), [50, 150]);
  const ranged = sampleRandom({
    numPrompts: 200,
    seed: 2,
    tokenizer: builtinTokenizer,
    inputLen: 100,
    outputLen: 10,
    rangeRatio: 0.5,
    prefixLen: 8,
  });
  const prefix = ranged.requests[0]?.prompt.split(' ').slice(0, 8).join(' ');
  for (const r of ranged.requests) {
    assert.ok(r.promptTokens >= 58 && r.promptTokens <= 158, `prompt ${r.promptTokens}`);
    assert.ok(r.outputTokens >= 5 && r.outputTokens <= 15);
    assert.ok(r.prompt.startsWith(`${prefix} `), 'shared prefix');
  }
  assert.deepEqual(
    sampleRandom({ numPrompts: 3, seed: 9, tokenizer: builtinTokenizer }),
    sampleRandom({ numPrompts: 3, seed: 9, tokenizer: builtinTokenizer }),
  );
  assert.throws(
    () => sampleRandom({ numPrompts: 1, seed: 0, tokenizer: builtinTokenizer, rangeRatio: 1 }),
    UserFacingError,
  );
});

test('JSONL dataset: prompts with optional output_tokens, malformed lines skipped and reported', async () => {
  const path = join(dir, 'prompts.jsonl');
  writeFileSync(
    path,
    [
      '{"prompt": "Explain TCP slow start in two sentences.", "output_tokens": 64}',
      '',
      '{"prompt": "Name three rivers in Europe."}',
      'not json',
      '{"prompt": ""}',
      '{"prompt": "Write a haiku about queues.", "output_tokens": 0}',
      '{"prompt": "Translate good morning to French."}\r',
    ].join('\n'),
  );
  const sample = await sampleJsonl({
    path,
    numPrompts: 3,
    seed: 0,
    tokenizer: builtinTokenizer,
    keepOrder: true,
    defaultOutputTokens: 100,
  });
  assert.deepEqual(
    sample.requests.map((r) => [r.sourceId, r.outputTokens, r.promptTokens]),
    [
      ['line 1', 64, 8],
      ['line 3', 100, 6],
      ['line 7', 100, 6],
    ],
  );
  assert.deepEqual({ ...sample.stats, reasons: [] }, { lines: 7, valid: 3, malformed: 3, reasons: [] });
  assert.match(sample.stats.reasons[0] ?? '', /^line 4: invalid JSON \(/); // V8's wording varies by version
  assert.deepEqual(sample.stats.reasons.slice(1), [
    "line 5: 'prompt' missing or not a non-empty string",
    "line 6: 'output_tokens' must be a whole number above 0",
  ]);
  const over = await sampleJsonl({ path, numPrompts: 5, seed: 0, tokenizer: builtinTokenizer });
  assert.equal(over.requests.length, 5);
  assert.ok(over.notes.some((n) => n.startsWith('oversampled: only 3 usable entries for 5 requests')));
});
