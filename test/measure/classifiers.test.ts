import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLASSIFIERS, classifierFor } from '../../src/measure/classifiers.js';

test('each protocol is registered under its own name', () => {
  assert.deepEqual(
    [...CLASSIFIERS.keys()],
    ['openai-chat', 'openai-completions', 'anthropic-messages', 'openai-responses'],
  );
  for (const [name, classifier] of CLASSIFIERS) assert.equal(classifier.protocol, name);
  assert.equal(classifierFor('openai-chat')?.protocol, 'openai-chat');
  assert.equal(classifierFor('grpc'), undefined);
});
