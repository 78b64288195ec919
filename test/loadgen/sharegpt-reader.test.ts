// The ShareGPT reader: malformed entries skipped and counted at any read size; the bundled sample is clean.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BUNDLED_SHAREGPT_SAMPLE } from '../../loadgen/bench/load-dataset.js';
import { ShareGptReader } from '../../loadgen/datasets/sharegpt-reader.js';
import { collect } from './helpers/chunked.js';

/** Entries a reader must survive, moved out of the bundled sample (which vLLM's own script must read). */
const MALFORMED_FIXTURE = fileURLToPath(
  new URL('../../../test/loadgen/fixtures/sharegpt-malformed.json', import.meta.url),
);

const dir = mkdtempSync(join(tmpdir(), 'tokenmeter-reader-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const turn = (from: string, value: string) => ({ from, value });
const FILE = `[
  {"id": "ok-1", "conversations": [${JSON.stringify(turn('human', 'Wie geht es dir? 你好 😀'))}, ${JSON.stringify(turn('gpt', 'Gut, danke.'))}]},
  {"id": "no-conversations"},
  {"id": "bad" "conversations": []},
  {"id": "one-turn", "conversations": [{"from": "human", "value": "only me"}]},
  {"id": "wrong-type", "conversations": "human: hi"},
  {"id": "number-value", "conversations": [{"from": "human", "value": 7}, {"from": "gpt", "value": "x"}]},
  17,
  {"id": 99, "conversations": [{"value": "no from field"}, {"from": "gpt", "value": "fine"}]},
  {"conversations": [{"from": "human", "value": "no id"}, {"from": "gpt", "value": "named by position"}]}
]`;

test('skips malformed entries, counts them, keeps the first reasons, whatever the read size', async () => {
  const path = join(dir, 'mixed.json');
  writeFileSync(path, FILE);
  for (const highWaterMark of [1, 3, 8, 64, 1 << 20]) {
    const reader = new ShareGptReader(path, { highWaterMark, maxReasons: 3 });
    const elements = await collect(reader);
    assert.deepEqual(
      elements.map((e) => [e.index, e.conversation.id, e.conversation.conversations.length]),
      [
        [0, 'ok-1', 2],
        [3, 'one-turn', 1],
        [7, '99', 2],
        [8, '#8', 2],
      ],
      `highWaterMark ${highWaterMark}`,
    );
    assert.equal(elements[0]?.conversation.conversations[0]?.value, 'Wie geht es dir? 你好 😀');
    assert.equal(elements[2]?.conversation.conversations[0]?.from, '');
    assert.deepEqual(
      { elements: reader.stats.elements, valid: reader.stats.valid, malformed: reader.stats.malformed },
      { elements: 9, valid: 4, malformed: 5 },
    );
    assert.equal(reader.stats.reasons.length, 3);
    assert.equal(reader.stats.reasons[0], "element 1: no 'conversations' key");
    assert.match(reader.stats.reasons[1] ?? '', /^element 2: invalid JSON/);
    assert.equal(reader.stats.reasons[2], "element 4: 'conversations' is string, not an array");
  }
});

test('the malformed fixture: each bad entry skipped with its reason, the rest read', async () => {
  const reader = new ShareGptReader(MALFORMED_FIXTURE, { highWaterMark: 64 });
  const elements = await collect(reader);
  assert.deepEqual(
    elements.map((e) => e.conversation.id),
    ['well-formed', '#1', 'no-turns', 'one-turn'],
    'too few turns is for the sampler to drop; a missing id is named by position',
  );
  assert.equal(reader.stats.malformed, 5);
  assert.deepEqual(reader.stats.reasons, [
    "element 2: no 'conversations' key",
    "element 5: 'conversations' is string, not an array",
    "element 6: turn 0 'value' is number, not a string",
    'element 7: turn 0 is not an object',
    'element 8: a string, not an object',
  ]);
});

test("the bundled sample is well-formed: no note from our reader, every entry one vLLM's loader reads", async () => {
  const reader = new ShareGptReader(BUNDLED_SHAREGPT_SAMPLE, { highWaterMark: 4096 });
  const elements = await collect(reader);
  assert.equal(reader.stats.malformed, 0, reader.stats.reasons.join('; '));
  assert.deepEqual(reader.stats.notices, []);
  assert.ok(elements.length >= 150, `${elements.length} entries`);
  for (const { conversation } of elements) {
    assert.doesNotMatch(conversation.id, /^#/, 'every entry has an id');
    assert.ok(conversation.conversations.length >= 2, `${conversation.id} has a prompt and a reply`);
  }
  // vLLM's ShareGPT loader (vllm/benchmarks/datasets/sharegpt.py), restated: keep entries with a
  // "conversations" key and at least two turns, then read turn 0 and turn 1's "value". Nothing may be dropped
  // for its shape, and each value it reads must be a string (its tokenizer takes nothing else).
  const data = JSON.parse(readFileSync(BUNDLED_SHAREGPT_SAMPLE, 'utf8')) as Array<Record<string, unknown>>;
  const kept = data.filter((e) => 'conversations' in e && (e['conversations'] as unknown[]).length >= 2);
  assert.equal(kept.length, data.length);
  for (const entry of kept) {
    const [prompt, reply] = entry['conversations'] as Array<{ value: unknown }>;
    assert.equal(typeof prompt?.value, 'string');
    assert.equal(typeof reply?.value, 'string');
  }
});
