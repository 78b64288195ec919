// The usage-only chunk the gateway asked for is measured and removed; every other byte passes unchanged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StreamMeter } from '../../src/measure/stream-meter.js';
import { openAiChatClassifier } from '../../src/protocols/openai-chat/stream-classifier.js';
import { byteByByte } from '../sse/collect-events.js';
import { CHAT_STREAM_BYTES, chatStreamWithoutUsage } from '../sse/fixtures/recorded-chat-stream.js';

function forward(chunks: readonly Uint8Array[]): { out: Buffer; meter: StreamMeter } {
  const meter = new StreamMeter({ classifier: openAiChatClassifier, removeUsageOnlyEvents: true });
  const out: Uint8Array[] = [];
  for (const chunk of chunks) out.push(meter.onBytes(chunk, 1));
  out.push(meter.end(2));
  return { out: Buffer.concat(out), meter };
}

test('the usage-only chunk is removed and measured; every other byte is identical, at every split', () => {
  const expected = Buffer.from(chatStreamWithoutUsage());
  for (let cut = 0; cut <= CHAT_STREAM_BYTES.length; cut++) {
    const { out, meter } = forward([CHAT_STREAM_BYTES.subarray(0, cut), CHAT_STREAM_BYTES.subarray(cut)]);
    assert.deepEqual(out, expected, `split at byte ${cut}`);
    assert.equal(meter.result().usageOutputTokens, 7, `split at byte ${cut}`);
    assert.equal(meter.result().sawDone, true);
  }
  assert.deepEqual(forward(byteByByte(CHAT_STREAM_BYTES)).out, expected);
});

test('without removeUsageOnlyEvents the chunk passed in is the chunk returned', () => {
  const meter = new StreamMeter({ classifier: openAiChatClassifier });
  const chunk = Buffer.from(CHAT_STREAM_BYTES);
  assert.equal(meter.onBytes(chunk, 1), chunk);
  assert.equal(meter.end(2).length, 0);
});
