// The chat stream classifier: what is content (text, reasoning, refusal, tool arguments) and what is not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openAiChatClassifier } from '../../src/protocols/openai-chat/stream-classifier.js';
import { chatChunk, delta, sseEvent } from '../measure/classify.js';

const classify = (data: string, type?: string) => openAiChatClassifier.classify(sseEvent(data, type));

test('a role-only delta, an empty delta and empty strings are not content', () => {
  for (const fields of [
    { role: 'assistant' },
    { role: 'assistant', content: '' },
    {},
    { content: null },
    { content: '', reasoning_content: '', tool_calls: [] },
  ]) {
    assert.deepEqual(classify(chatChunk([delta(fields)], { usage: null })), {}, JSON.stringify(fields));
  }
  assert.deepEqual(classify(chatChunk([])), {});
  // An empty argument fragment is no content, though it names its tool call.
  assert.deepEqual(
    classify(chatChunk([delta({ tool_calls: [{ index: 0, function: { arguments: '' } }] })])),
    {
      toolCallIndexes: [0],
    },
  );
});

test('content, reasoning and refusal deltas are content; reasoning is marked as such', () => {
  assert.deepEqual(classify(chatChunk([delta({ content: 'Hi' })])), { contentText: 'Hi' });
  assert.deepEqual(classify(chatChunk([delta({ reasoning_content: 'Let me think' })])), {
    contentText: 'Let me think',
    reasoning: true,
  });
  assert.deepEqual(classify(chatChunk([delta({ reasoning: 'hmm' })])), {
    contentText: 'hmm',
    reasoning: true,
  });
  // Servers that send both names carry the same text: it is read once.
  assert.deepEqual(classify(chatChunk([delta({ reasoning: 'hmm', reasoning_content: 'hmm' })])), {
    contentText: 'hmm',
    reasoning: true,
  });
  // With the answer in the same delta, the answer has begun: not reasoning.
  assert.deepEqual(classify(chatChunk([delta({ reasoning: 'so', content: 'Yes' })])), {
    contentText: 'Yesso',
  });
  assert.deepEqual(classify(chatChunk([delta({ refusal: 'I cannot' })])), { contentText: 'I cannot' });
});

test('tool-call argument deltas are content, each naming its call by index', () => {
  const call = (fn: object, index = 0) => ({ index, id: 'call_1', type: 'function', function: fn });
  assert.deepEqual(classify(chatChunk([delta({ tool_calls: [call({ arguments: '{"city":' })] })])), {
    contentText: '{"city":',
    toolCallIndexes: [0],
  });
  assert.deepEqual(classify(chatChunk([delta({ tool_calls: [call({ name: 'weather', arguments: '' })] })])), {
    contentText: 'weather',
    toolCallIndexes: [0],
  });
  // Two parallel calls in one delta.
  assert.deepEqual(
    classify(chatChunk([delta({ tool_calls: [call({ name: 'a' }), call({ name: 'b' }, 1)] })])),
    { contentText: 'ab', toolCallIndexes: [0, 1] },
  );
  assert.deepEqual(classify(chatChunk([delta({ function_call: { arguments: '"Paris"}' } })])), {
    contentText: '"Paris"}',
    toolCallIndexes: [0],
  });
});

test('a finish_reason is recorded, with or without content in the same chunk', () => {
  assert.deepEqual(classify(chatChunk([delta({}, 'stop')])), { finishReason: 'stop' });
  assert.deepEqual(classify(chatChunk([delta({ content: '.' }, 'length')])), {
    contentText: '.',
    finishReason: 'length',
  });
});

test('the usage-only chunk is usage, never content', () => {
  const usage = { prompt_tokens: 12, completion_tokens: 34, total_tokens: 46 };
  assert.deepEqual(classify(chatChunk([], { usage })), {
    promptTokens: 12,
    completionTokens: 34,
    usageOnly: true,
  });
});

test('usage on a chunk that also has choices is read but the chunk is not usage-only', () => {
  const usage = { prompt_tokens: 5, completion_tokens: 1 };
  assert.deepEqual(classify(chatChunk([delta({ content: 'a' })], { usage })), {
    contentText: 'a',
    promptTokens: 5,
    completionTokens: 1,
  });
});

test('[DONE] is the end marker', () => {
  assert.deepEqual(classify('[DONE]'), { done: true });
});

test('an error object sent instead of choices is an error event with its message', () => {
  assert.deepEqual(
    classify(JSON.stringify({ error: { message: 'model overloaded', type: 'server_error' } })),
    {
      errorMessage: 'model overloaded',
    },
  );
  assert.deepEqual(classify(JSON.stringify({ error: 'plain text' })), { errorMessage: 'plain text' });
  assert.deepEqual(classify(JSON.stringify({ object: 'error', message: 'bad input', code: 400 })), {
    errorMessage: 'bad input',
  });
  assert.deepEqual(classify(JSON.stringify({ error: { code: 500 } })), { errorMessage: '{"code":500}' });
  assert.deepEqual(classify('upstream went away', 'error'), { errorMessage: 'upstream went away' });
  assert.deepEqual(
    classify(JSON.stringify({ error: { message: 'x'.repeat(5000) } })).errorMessage?.length,
    2000,
  );
});

test('unparseable data is flagged, never thrown', () => {
  for (const data of ['{"choices": [', 'not json', '42', '[1,2]', 'null', '']) {
    assert.deepEqual(classify(data), { unparseable: true }, data);
  }
});

test('malformed fields are ignored rather than trusted', () => {
  assert.deepEqual(classify(JSON.stringify({ choices: [delta({ content: 7 }), 'x', null] })), {});
  assert.deepEqual(classify(chatChunk([], { usage: { prompt_tokens: '3', completion_tokens: -1 } })), {
    usageOnly: true,
    implausibleUsage: 'implausible usage ignored: usage.completion_tokens is -1 (negative)',
  });
  assert.deepEqual(classify(JSON.stringify({ choices: 'none' })), {});
});
