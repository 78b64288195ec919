import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ShareGptReader } from '../../loadgen/datasets/sharegpt-reader.js';
import { collect } from './helpers/chunked.js';

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

test('reads the bundled sample: 200 entries, the deliberately malformed ones skipped', async () => {
  const reader = new ShareGptReader('loadgen/data/sharegpt-sample.json', { highWaterMark: 4096 });
  const elements = await collect(reader);
  assert.equal(reader.stats.elements, 200);
  assert.equal(reader.stats.malformed, 5);
  assert.equal(elements.length, 195);
});
