// Each protocol's non-streamed answer reader: usage, finish reason, estimates, and errors inside a 200.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PROTOCOLS, protocolByName } from '../../src/protocols/index.js';

const read = (name: string, answer: unknown) =>
  protocolByName(name)?.readAnswer(Buffer.from(JSON.stringify(answer)));

test('each protocol reads usage and the finish reason from its own answer', () => {
  assert.deepEqual(
    read('openai-chat', {
      choices: [{ message: { content: 'hi' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 5, completion_tokens: 2 },
    }),
    {
      promptTokens: 5,
      cachedPromptTokens: null,
      outputTokens: 2,
      reasoningTokens: null,
      source: 'usage',
      finishReason: 'stop',
      toolCalls: 0,
      responseId: null,
      errorMessage: null,
      notAnswer: null,
    },
  );
  assert.deepEqual(
    read('openai-completions', { choices: [{ text: 'hello there', finish_reason: 'length' }] })?.finishReason,
    'length',
  );
  assert.deepEqual(
    read('anthropic-messages', {
      type: 'message',
      content: [{ type: 'text', text: 'hi' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 7, output_tokens: 3 },
    }),
    {
      promptTokens: 7,
      cachedPromptTokens: null,
      outputTokens: 3,
      reasoningTokens: null,
      source: 'usage',
      finishReason: 'end_turn',
      toolCalls: 0,
      responseId: null,
      errorMessage: null,
      notAnswer: null,
    },
  );
  assert.deepEqual(
    read('openai-responses', {
      id: 'resp_1',
      object: 'response',
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [{ type: 'message', content: [{ type: 'output_text', text: 'hi' }] }],
      usage: { input_tokens: 4, output_tokens: 9, input_tokens_details: { cached_tokens: 3 } },
    }),
    {
      promptTokens: 4,
      cachedPromptTokens: 3,
      outputTokens: 9,
      reasoningTokens: null,
      source: 'usage',
      finishReason: 'max_output_tokens',
      // An output holding no tool call (one without any is no answer: upstream-faults.test.ts).
      toolCalls: 0,
      responseId: 'resp_1',
      errorMessage: null,
      notAnswer: null,
    },
  );
});

test('without usage, output tokens are estimated from the generated text', () => {
  assert.equal(
    read('openai-chat', { choices: [{ message: { content: 'some words' } }] })?.source,
    'estimate',
  );
  assert.equal(
    read('anthropic-messages', { content: [{ type: 'text', text: 'some words' }] })?.source,
    'estimate',
  );
});

test('every protocol takes a 200 that carries an error object for the error, and tolerates non-JSON', () => {
  for (const protocol of PROTOCOLS) {
    const facts = protocol.readAnswer(Buffer.from('{"error":{"message":"model overloaded"}}'));
    assert.equal(facts.errorMessage, 'model overloaded', protocol.name);
    assert.equal(protocol.readAnswer(Buffer.from('not json')).errorMessage, null, protocol.name);
  }
  assert.equal(
    read('anthropic-messages', { type: 'error', object: 'error', message: 'x' })?.errorMessage,
    'x',
  );
});
