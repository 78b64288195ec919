// The completions stream classifier: choices[].text is content; the rest is read as for chat.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openAiCompletionsClassifier } from '../../src/protocols/openai-completions/stream-classifier.js';
import { sseEvent } from '../measure/classify.js';

const classify = (body: object | string) =>
  openAiCompletionsClassifier.classify(sseEvent(typeof body === 'string' ? body : JSON.stringify(body)));

test('non-empty choices[].text is content; empty text is not', () => {
  const choice = (text: string, finish: string | null = null) => ({ index: 0, text, finish_reason: finish });
  assert.deepEqual(classify({ object: 'text_completion', choices: [choice(' Paris')] }), {
    contentText: ' Paris',
  });
  assert.deepEqual(classify({ object: 'text_completion', choices: [choice('')] }), {});
  assert.deepEqual(classify({ object: 'text_completion', choices: [choice('', 'length')] }), {
    finishReason: 'length',
  });
});

test('a chat delta is not completions content', () => {
  assert.deepEqual(classify({ choices: [{ index: 0, delta: { content: 'x' } }] }), {});
});

test('usage-only chunk, [DONE], errors and bad JSON are read as for chat', () => {
  assert.deepEqual(classify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } }), {
    promptTokens: 3,
    completionTokens: 4,
    usageOnly: true,
  });
  assert.deepEqual(classify('[DONE]'), { done: true });
  assert.deepEqual(classify({ error: { message: 'boom' } }), { errorMessage: 'boom' });
  assert.deepEqual(classify('{'), { unparseable: true });
});
