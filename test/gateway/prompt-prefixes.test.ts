// The record's promptPrefixes (src/gateway/prompt-prefixes.ts): bounded whatever the conversation's length (the
// frame, the first 4 and the last 16 boundaries), byte offsets that count tools, instructions and messages as
// sent, equal hashes exactly where two prompts agree up to a boundary (whatever chunks the body came in), other
// hashes where the tools or the protocol differ, and no text of the prompt in them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BodyScanner } from '../../src/gateway/request-path/body-scan.js';
import { parseBody } from '../../src/gateway/request-path/request-body.js';
import { conversationFacts } from '../../src/gateway/sessions/conversation.js';
import {
  FIRST_PREFIXES,
  LAST_PREFIXES,
  MAX_PROMPT_PREFIXES,
  type PromptPrefix,
} from '../../src/gateway/sessions/prompt-prefixes.js';

function prefixes(body: unknown, protocol = 'chat', chunk = 1 << 20): PromptPrefix[] {
  const raw = Buffer.from(JSON.stringify(body));
  const scanner = new BodyScanner();
  for (let at = 0; at < raw.length; at += chunk) scanner.push(raw.subarray(at, at + chunk));
  const found = conversationFacts(parseBody(raw, scanner), 'messages')?.promptPrefixes(protocol);
  assert.ok(found);
  return found;
}

function conversation(messages: number, topic = 'secret-topic'): { role: string; content: string }[] {
  return Array.from({ length: messages }, (_, i) => ({
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: `${topic} message ${i}`,
  }));
}

test('a long conversation keeps the frame, its first and its last boundaries: never more than the bound', () => {
  const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }];
  const body = { model: 'm', tools, messages: conversation(300) };
  const found = prefixes(body);
  assert.equal(found.length, MAX_PROMPT_PREFIXES);
  const counts = found.map(([messages]) => messages);
  assert.deepEqual(counts.slice(0, 1 + FIRST_PREFIXES), [0, 1, 2, 3, 4]);
  assert.deepEqual(
    counts.slice(1 + FIRST_PREFIXES),
    Array.from({ length: LAST_PREFIXES }, (_, i) => 300 - LAST_PREFIXES + 1 + i),
  );
  // The bytes: the tools' value first, then each message's bytes as sent, the last the whole prompt.
  const raw = JSON.stringify(body);
  const toolBytes = JSON.stringify(tools).length;
  assert.equal(found[0]?.[1], toolBytes);
  const messagesStart = raw.indexOf('[{"role"') + 1;
  const messagesEnd = raw.lastIndexOf('}]}') + 1;
  assert.equal(found.at(-1)?.[1], toolBytes + messagesEnd - messagesStart);
  assert.doesNotMatch(JSON.stringify(found), /secret-topic|message/);
});

test('equal up to a boundary, equal hashes there; the chunks the body came in change nothing', () => {
  const turn0 = { model: 'm', messages: conversation(3) };
  const turn1 = { model: 'm', messages: conversation(5) };
  const a = prefixes(turn0);
  const b = prefixes(turn1, 'chat', 7);
  assert.deepEqual(
    a.map(([, , hash]) => hash),
    b.slice(0, 3).map(([, , hash]) => hash),
  );
  assert.deepEqual(
    a.map(([m, bytes]) => [m, bytes]),
    b.slice(0, 3).map(([m, bytes]) => [m, bytes]),
  );
  const other = prefixes({ model: 'm', messages: conversation(3, 'other-topic') });
  assert.ok(other.every(([, , hash], i) => hash !== a[i]?.[2]));
});

test('the same messages with other tools, or in another protocol, are other prompts', () => {
  const messages = conversation(2);
  const plain = prefixes({ model: 'm', messages });
  const withTools = prefixes({ model: 'm', messages, tools: [{ name: 't' }] });
  const inMessages = prefixes({ model: 'm', messages }, 'messages');
  for (const [, , hash] of plain) {
    assert.ok(!withTools.some(([, , h]) => h === hash));
    assert.ok(!inMessages.some(([, , h]) => h === hash));
  }
});
