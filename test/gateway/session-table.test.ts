// The session table's bounds (count, idle age) and what conversation.ts reads from a body: hashes that let a
// turn find the one before it whatever chunks the body arrived in, only as far back as the kept spans, and the
// tool results after the model's last message in each protocol's form.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BodyScanner } from '../../src/gateway/request-path/body-scan.js';
import { parseBody, parseBodyBytes } from '../../src/gateway/request-path/request-body.js';
import {
  type ConversationChain,
  type ConversationFacts,
  conversationFacts,
  MAX_TURN_GROWTH,
  sessionOfUserId,
} from '../../src/gateway/sessions/conversation.js';
import { KEPT_ELEMENTS } from '../../src/gateway/sessions/element-spans.js';
import { MAX_IDLE_MS, SessionTable } from '../../src/gateway/sessions/sessions.js';

function facts(body: unknown, field: 'messages' | 'input' = 'messages'): ConversationFacts {
  const parsed = conversationFacts(parseBodyBytes(Buffer.from(JSON.stringify(body))), field);
  assert.ok(parsed);
  return parsed;
}

/** The body scanned in chunks of `size` bytes, as a socket might deliver it. */
function factsInChunks(body: unknown, size: number): ConversationFacts {
  const raw = Buffer.from(JSON.stringify(body));
  const scanner = new BodyScanner();
  for (let at = 0; at < raw.length; at += size) scanner.push(raw.subarray(at, at + size));
  const parsed = conversationFacts(parseBody(raw, scanner), 'messages');
  assert.ok(parsed);
  return parsed;
}

function chat(turns: number, topic = 'a'): { model: string; messages: unknown[] } {
  const messages: unknown[] = [{ role: 'user', content: `question ${topic}` }];
  for (let t = 0; t < turns; t++) {
    messages.push({ role: 'assistant', content: `answer ${t} with "quotes" and [brackets] {braces}` });
    messages.push({ role: 'user', content: `follow-up ${t}` });
  }
  return { model: 'm', messages };
}

/** The conversation's hashes, which a body with messages always has. */
function chainOf(body: unknown): ConversationChain {
  const chain = facts(body).chain();
  assert.ok(chain);
  return chain;
}

test("a turn's prefix hashes hold the earlier turn's whole hash, whatever chunks either arrived in", () => {
  const earlier = chainOf(chat(2));
  const later = chainOf(chat(3));
  assert.equal(facts(chat(3)).length, facts(chat(2)).length + 2);
  assert.equal(later.prefixHashes[1], earlier.hash, 'two messages back');
  for (const size of [1, 7, 64]) {
    const chunked = factsInChunks(chat(3), size);
    assert.deepEqual(chunked.chain(), later, `chunks of ${size}`);
    assert.equal(chunked.length, 7);
  }
  // Another conversation, or the same with other instructions, shares no hash.
  assert.ok(!chainOf(chat(3, 'b')).prefixHashes.includes(earlier.hash));
  assert.ok(!chainOf({ ...chat(3), system: 'Be brief.' }).prefixHashes.includes(earlier.hash));
});

test('prefix hashes reach back MAX_TURN_GROWTH messages; a longer conversation still hashes whole', () => {
  const messages = chat(KEPT_ELEMENTS).messages;
  const long = chainOf({ model: 'm', messages });
  assert.equal(long.prefixHashes.length, MAX_TURN_GROWTH);
  assert.equal(long.prefixHashes[0], chainOf({ model: 'm', messages: messages.slice(0, -1) }).hash);
  assert.equal(
    long.prefixHashes.at(-1),
    chainOf({ model: 'm', messages: messages.slice(0, -MAX_TURN_GROWTH) }).hash,
  );
});

test('tool results after the model’s last message, in each protocol’s form', () => {
  const call = { role: 'assistant', content: null, tool_calls: [{ id: 'a' }, { id: 'b' }] };
  assert.equal(
    facts({
      messages: [
        { role: 'user', content: 'q' },
        call,
        { role: 'tool', content: '1' },
        { role: 'tool', content: '2' },
      ],
    }).toolResults,
    2,
  );
  const toolResult = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'x' });
  const anthropic = {
    messages: [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a' }] },
      { role: 'user', content: [toolResult('a')] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'b' },
          { type: 'tool_use', id: 'c' },
        ],
      },
      { role: 'user', content: [toolResult('b'), toolResult('c'), { type: 'text', text: 'go on' }] },
    ],
  };
  assert.equal(facts(anthropic).toolResults, 2);
  const output = (id: string) => ({ type: 'function_call_output', call_id: id, output: 'x' });
  const responses = {
    input: [
      { role: 'user', content: 'q' },
      { type: 'reasoning', summary: [] },
      { type: 'function_call', call_id: 'a', name: 'f', arguments: '{}' },
      { type: 'function_call', call_id: 'b', name: 'f', arguments: '{}' },
      output('a'),
      output('b'),
    ],
  };
  assert.equal(facts(responses, 'input').toolResults, 2);
  // After previous_response_id only the outputs are sent: all of them are this turn's.
  assert.equal(facts({ previous_response_id: 'resp_1', input: [output('a')] }, 'input').toolResults, 1);
  assert.equal(facts({ input: 'just text' }, 'input').toolResults, 0);
});

test('the session ids a body carries: metadata.user_id as Claude Code writes it, prompt_cache_key, previous_response_id', () => {
  assert.equal(sessionOfUserId('user_ab12_account_cd34_session_e5f6-0001'), 'e5f6-0001');
  assert.equal(sessionOfUserId('{"device_id":"d","session_id":"s-1"}'), 's-1');
  assert.equal(sessionOfUserId('user-1234'), undefined);
  assert.equal(sessionOfUserId(42), undefined);
  const body = facts({
    prompt_cache_key: 'k',
    previous_response_id: 'resp_9',
    metadata: { user_id: 'u_session_x' },
    messages: [],
  });
  assert.deepEqual(
    [body.promptCacheKey, body.previousResponseId, body.metadataSession],
    ['k', 'resp_9', 'x'],
  );
});

test('the table holds at most its bound of sessions, the least recently seen forgotten first', () => {
  const table = new SessionTable(3);
  const withId = (id: string) => ({ 'x-claude-code-session-id': id });
  let now = 0;
  for (const id of ['a', 'b', 'c']) table.begin(withId(id), undefined, now++);
  // a seen again: b is now the least recently seen.
  assert.equal(table.begin(withId('a'), undefined, now++)?.turn, 1);
  table.begin(withId('d'), undefined, now++);
  assert.equal(table.size, 3);
  assert.equal(table.begin(withId('a'), undefined, now++)?.turn, 2, 'a kept');
  assert.equal(table.begin(withId('b'), undefined, now++)?.turn, 0, 'b forgotten, starts over');
  assert.equal(table.size, 3);
});

test('a session idle for the age bound is forgotten; the wait is from its last answer to the next arrival', () => {
  const table = new SessionTable();
  const headers = { 'session-id': 'codex-1' };
  const first = table.begin(headers, undefined, 1000);
  assert.ok(first);
  assert.equal(first.waitBeforeMs, null);
  // A second request while the first is unanswered has no wait: its turns overlap.
  const overlapping = table.begin(headers, undefined, 1100);
  assert.equal(overlapping?.waitBeforeMs, null);
  table.end(first, 1500, undefined);
  table.end(overlapping as NonNullable<typeof overlapping>, 1400, undefined);
  const third = table.begin(headers, undefined, 1750);
  assert.equal(third?.waitBeforeMs, 250, 'from the later answer end');
  table.end(third as NonNullable<typeof third>, 1800, undefined);
  const fourth = table.begin(headers, undefined, 1800 + MAX_IDLE_MS - 1);
  assert.equal(fourth?.turn, 3);
  table.end(fourth as NonNullable<typeof fourth>, 1800 + MAX_IDLE_MS, undefined);
  assert.equal(table.size, 1);
  const afterIdle = table.begin({ 'session-id': 'other' }, undefined, 1800 + 3 * MAX_IDLE_MS);
  assert.equal(afterIdle?.turn, 0);
  assert.equal(table.size, 1, 'the idle session was forgotten');
});

test('a previous_response_id names the session of the answer it came from', () => {
  const table = new SessionTable();
  const first = table.begin({}, facts({ input: [{ role: 'user', content: 'q' }] }, 'input'), 0);
  assert.ok(first);
  table.end(first, 10, 'resp_1');
  const next = table.begin({}, facts({ previous_response_id: 'resp_1', input: [] }, 'input'), 20);
  assert.deepEqual(
    [next?.sessionId, next?.turn, next?.source, next?.waitBeforeMs],
    [first.sessionId, 1, 'previous-response-id', 10],
  );
  const unknown = table.begin({}, facts({ previous_response_id: 'resp_404', input: [] }, 'input'), 30);
  assert.notEqual(unknown?.sessionId, first.sessionId);
  assert.equal(unknown?.turn, 0);
});
