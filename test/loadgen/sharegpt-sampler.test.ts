// The ShareGPT sampler: vLLM's length rules, --num-prompts, the seed, and oversampling when too few pass.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { lengthRejection } from '../../loadgen/datasets/sharegpt-length-rules.js';
import { sampleShareGpt } from '../../loadgen/datasets/sharegpt-sampler.js';
import { builtinTokenizer } from '../../loadgen/tokenizer/tokenizer.js';

// Hand-checked fixture. Under the built-in rule one word is one token, so `words(n)` is exactly n tokens.
const words = (n: number): string => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
const pair = (id: string, prompt: string, reply: string) => ({
  id,
  conversations: [
    { from: 'human', value: prompt },
    { from: 'gpt', value: reply },
  ],
});
const FIXTURE = [
  pair('keep-boundary', words(4), words(4)), // kept: exactly 4 and 4 pass (limits inclusive)
  pair('short-prompt', words(3), words(50)), // dropped: prompt 3 < 4
  pair('short-reply', words(5), words(3)), // dropped: reply 3 < 4 (kept when the output length is fixed)
  pair('long-prompt', words(1025), words(10)), // dropped: prompt 1025 > 1024
  pair('max-lengths', words(1024), words(1024)), // kept: 1024 + 1024 = 2048 passes
  pair('total-too-long', words(1000), words(1049)), // dropped: 1000 + 1049 = 2049 > 2048 (kept when fixed)
  { id: 'one-turn', conversations: [{ from: 'human', value: words(20) }] }, // filtered: fewer than 2 turns
  { id: 'no-conversations' }, // malformed: skipped by the reader
  {
    id: 'roles-swapped',
    conversations: [
      { from: 'gpt', value: words(6) },
      { from: 'human', value: words(7) },
    ],
  }, // kept: roles unchecked
  {
    id: 'three-turns', // kept: prompt = turn 0, reply = turn 1, turn 2 ignored
    conversations: [
      { from: 'human', value: words(8) },
      { from: 'gpt', value: words(9) },
      { from: 'human', value: words(2000) },
    ],
  },
];
const SURVIVORS = ['keep-boundary', 'max-lengths', 'roles-swapped', 'three-turns'];

const dir = mkdtempSync(join(tmpdir(), 'tokenmeter-sampler-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const path = join(dir, 'fixture.json');
writeFileSync(path, JSON.stringify(FIXTURE, null, 2));

test('keeps exactly the entries that pass vLLM rules, with their token counts', async () => {
  // Ask for more than can pass, so every eligible entry is examined (the rest are oversampled copies).
  const sample = await sampleShareGpt({
    path,
    numPrompts: 20,
    seed: 0,
    tokenizer: builtinTokenizer,
    reader: { highWaterMark: 16 },
  });
  const byId = new Map(sample.requests.filter((r) => r.oversampled !== true).map((r) => [r.sourceId, r]));
  assert.equal(byId.size, 4);
  assert.deepEqual([...byId.keys()].sort(), [...SURVIVORS].sort());
  assert.deepEqual(
    SURVIVORS.map((id) => [byId.get(id)?.promptTokens, byId.get(id)?.outputTokens]),
    [
      [4, 4],
      [1024, 1024],
      [6, 7],
      [8, 9],
    ],
  );
  assert.equal(byId.get('three-turns')?.prompt, words(8));
  assert.deepEqual(sample.stats.rejected, {
    'prompt too short': 1,
    'reply too short': 1,
    'prompt too long': 1,
    'prompt + reply too long': 1,
  });
  assert.equal(sample.stats.tooFewTurns, 1);
  assert.equal(sample.stats.eligible, 8);
  assert.equal(sample.stats.read.malformed, 1);
  assert.match(sample.notes[0] ?? '', /skipped 1 malformed entries: element 7: no 'conversations' key/);
});

test('stops at num_prompts, and the same seed picks the same entries', async () => {
  const first = await sampleShareGpt({ path, numPrompts: 2, seed: 7, tokenizer: builtinTokenizer });
  const again = await sampleShareGpt({ path, numPrompts: 2, seed: 7, tokenizer: builtinTokenizer });
  assert.equal(first.requests.length, 2);
  assert.deepEqual(first.requests, again.requests);
  for (const request of first.requests) assert.ok(SURVIVORS.includes(request.sourceId));
  assert.ok(first.stats.examined < first.stats.eligible || first.stats.examined === 8);
});

test('oversamples with duplicates when too few entries pass, and says so', async () => {
  const sample = await sampleShareGpt({ path, numPrompts: 10, seed: 1, tokenizer: builtinTokenizer });
  assert.equal(sample.requests.length, 10);
  assert.equal(sample.requests.filter((r) => r.oversampled === true).length, 6);
  for (const request of sample.requests) assert.ok(SURVIVORS.includes(request.sourceId));
  assert.ok(
    sample.notes.some(
      (note) =>
        note ===
        'oversampled: only 4 usable entries for 10 requests (of 10 entries: 1 malformed; 1 with fewer than the ' +
          "two turns a request needs; 4 dropped by vLLM's length filter: 1 prompt too short, 1 reply too short, " +
          '1 prompt too long, 1 prompt + reply too long); 6 duplicates added',
    ),
    sample.notes.join('\n'),
  );
});

test('a fixed output length replaces reply lengths and lifts the reply-length check', async () => {
  const sample = await sampleShareGpt({
    path,
    numPrompts: 100,
    seed: 0,
    tokenizer: builtinTokenizer,
    fixedOutputLen: 10,
  });
  const original = sample.requests.filter((r) => r.oversampled !== true).map((r) => r.sourceId);
  assert.deepEqual(original.sort(), [...SURVIVORS, 'short-reply', 'total-too-long'].sort());
  for (const request of sample.requests) assert.equal(request.outputTokens, 10);
});

test('length rule order and boundaries', () => {
  assert.equal(lengthRejection(4, 4, false), undefined);
  assert.equal(lengthRejection(3, 1, false), 'prompt too short');
  assert.equal(lengthRejection(4, 3, true), undefined);
  assert.equal(lengthRejection(1024, 1024, false), undefined);
  assert.equal(lengthRejection(1025, 3, false), 'reply too short');
  assert.equal(lengthRejection(1000, 1049, false), 'prompt + reply too long');
});
