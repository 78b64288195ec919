// Agentic traces (docs/loadgen.md, "Agentic traces"): the official `openai` and `@anthropic-ai/sdk` clients hold
// conversations of three turns through a real gateway in front of the simulator, in each protocol (chat by prefix
// chaining, Responses with its whole history resent, Anthropic messages named by Claude Code's header), plus a
// completions request that names no session. The records go through `trace export --sessions` and come back
// through `trace check` and the reader: the same sessions and turns, the recorded lengths, protocols and waits,
// and block ids where a turn begins with the previous turn's ids (but its last, partial block), sessions of one
// protocol that open with one system prompt share their first blocks, and no text is written. Then the reader's
// refusals, each one line with exit 1, and AIPerf's trace form read from a fixture written from its schema.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { request } from 'undici';
import type { AgentSession } from '../../loadgen/traces/agent-sessions.js';
import { parseAgenticTrace } from '../../loadgen/traces/agentic-trace.js';
import { readAiperfSessionTrace } from '../../loadgen/traces/aiperf-session-trace.js';
import { recordsToAgenticTrace } from '../../loadgen/traces/records-agentic.js';
import type { RequestRecord } from '../../src/gateway/records/record.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { runCli } from '../helpers/run-cli.js';
import { exactTiming } from './helpers/bench-fixtures.js';

const folder = mkdtempSync(join(tmpdir(), 'tokenmeter-agentic-'));
const BLOCK = 16;
const SESSIONS_PER_PROTOCOL = 2;
/** The think time before turns 1 and 2. */
const WAITS_MS = [0, 40, 20];
const SYSTEM = 'You are a careful assistant who answers questions about the weather in few words. '.repeat(4);
/** Words of the prompts: none may appear in the trace. */
const SECRET = 'zanzibar';

let sim: RunningSimulator;
let gateway: TestGateway;
let model: string;

before(async () => {
  sim = await startSimulator({ seed: 5, timing: exactTiming(2, 1) });
  model = sim.config.servedModelNames[0] as string;
  gateway = await startGateway({ upstreams: [{ name: 'sim', baseUrl: `${sim.url}/v1`, keyless: true }] });
});
after(async () => {
  await gateway.close();
  await sim.close();
});

async function threeTurns(turn: (index: number) => Promise<string>): Promise<void> {
  for (let i = 0; i < 3; i++) {
    if (i > 0) await sleep(WAITS_MS[i]);
    await turn(i);
  }
}

async function chatSession(n: number): Promise<void> {
  const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'k', maxRetries: 0 });
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: `Weather in ${SECRET} number ${n}?` },
  ];
  await threeTurns(async (i) => {
    const stream = await client.chat.completions.create({ model, messages, stream: true, max_tokens: 6 });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    messages.push(
      { role: 'assistant', content: text },
      { role: 'user', content: `And ${SECRET} tomorrow, ${i}?` },
    );
    return text;
  });
}

async function responsesSession(n: number): Promise<void> {
  const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'k', maxRetries: 0 });
  const input: OpenAI.Responses.ResponseInputItem[] = [
    { role: 'user', content: `Weather in ${SECRET} ${n}?` },
  ];
  await threeTurns(async (i) => {
    const response = await client.responses.create({
      model,
      instructions: SYSTEM,
      input,
      store: false,
      max_output_tokens: 6,
    });
    input.push(
      { role: 'assistant', content: response.output_text },
      { role: 'user', content: `And ${SECRET} tomorrow, ${i}?` },
    );
    return response.output_text;
  });
}

async function messagesSession(n: number): Promise<void> {
  const client = new Anthropic({ baseURL: gateway.url, apiKey: 'k', maxRetries: 0 });
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: `Weather in ${SECRET} ${n}?` }];
  await threeTurns(async (i) => {
    const stream = client.messages.stream(
      { model, system: SYSTEM, messages, max_tokens: 6 },
      { headers: { 'x-claude-code-session-id': `claude-session-${n}` } },
    );
    const text = (await stream.finalMessage()).content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    messages.push(
      { role: 'assistant', content: text },
      { role: 'user', content: `And ${SECRET} tomorrow, ${i}?` },
    );
    return text;
  });
}

/** The records, in a records file as the gateway writes it. */
function recordsFile(records: readonly RequestRecord[]): string {
  const file = join(folder, 'gateway.jsonl');
  writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return file;
}

/** Block ids a turn shares with the next: all but a last, partial block. */
function wholeBlocks(tokens: number): number {
  return Math.floor(tokens / BLOCK);
}

test('three protocols captured through the gateway, exported with --sessions and read back', async () => {
  for (let n = 0; n < SESSIONS_PER_PROTOCOL; n++) {
    await chatSession(n);
    await responsesSession(n);
    await messagesSession(n);
  }
  const alone = await request(`${gateway.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, prompt: `${SECRET} alone`, max_tokens: 4 }),
  });
  assert.equal(alone.statusCode, 200, await alone.body.text());
  const total = SESSIONS_PER_PROTOCOL * 3 * 3 + 1;
  const records = await gateway.recordsAfter(total);
  assert.ok(
    records.every((r) => r.outcome === 'ok'),
    records.map((r) => `${r.outcome} ${r.error}`).join('; '),
  );
  // The records hold the prompt's boundaries, never its text.
  for (const record of records) {
    assert.doesNotMatch(JSON.stringify(record.promptPrefixes ?? null), new RegExp(SECRET));
    if (record.protocol !== 'openai-completions') assert.ok((record.promptPrefixes?.length ?? 0) > 0);
  }
  const traceFile = join(folder, 'agentic.jsonl');
  const exported = await runCli([
    'trace',
    'export',
    recordsFile(records),
    '-o',
    traceFile,
    '--sessions',
    '--block-tokens',
    String(BLOCK),
  ]);
  assert.equal(exported.code, 0, exported.stderr);
  assert.equal(
    exported.stdout,
    `Wrote ${traceFile}: ${SESSIONS_PER_PROTOCOL * 3 + 1} sessions, ${total} turns (1 sessions of one request that named no session); ${total - 1} turns with prefix ids from their prompt's boundaries\n`,
  );
  const text = readFileSync(traceFile, 'utf8');
  assert.doesNotMatch(text, new RegExp(`${SECRET}|weather|claude-session`, 'i'), 'no text and no client id');
  const checked = await runCli(['trace', 'check', traceFile]);
  assert.equal(checked.code, 0, checked.stderr);
  assert.equal(
    checked.stdout,
    `${traceFile}: tokenmeter agentic trace, ${SESSIONS_PER_PROTOCOL * 3 + 1} sessions, ${total} turns (at most 3 in a session), blocks of ${BLOCK} tokens\n`,
  );

  const trace = parseAgenticTrace(text, traceFile);
  assert.equal(trace.blockTokens, BLOCK);
  const byApi = new Map<string, AgentSession[]>();
  for (const session of trace.sessions) {
    const api = session.turns[0]?.api as string;
    byApi.set(api, [...(byApi.get(api) ?? []), session]);
  }
  assert.deepEqual(
    [...byApi].map(([api, sessions]) => [api, sessions.map((s) => s.turns.length)]),
    [
      ['chat', [3, 3]],
      ['responses', [3, 3]],
      ['messages', [3, 3]],
      ['completions', [1]],
    ],
  );
  // Every turn as recorded (the gateway's sessions, in order of their first arrival): lengths, waits, the clock.
  const first = Math.min(...records.map((r) => Date.parse(r.startedAt)));
  const gatewaySessions = new Map<string, RequestRecord[]>();
  for (const record of [...records].sort((a, b) => a.receivedAtMonotonicMs - b.receivedAtMonotonicMs)) {
    const key = record.sessionId ?? record.requestId;
    gatewaySessions.set(key, [...(gatewaySessions.get(key) ?? []), record]);
  }
  const recorded = [...gatewaySessions.values()];
  assert.equal(trace.sessions.length, recorded.length);
  trace.sessions.forEach((session, s) => {
    const sessionRecords = recorded[s] as RequestRecord[];
    assert.equal(session.turns.length, sessionRecords.length, `session ${session.id}`);
    session.turns.forEach((turn, k) => {
      const record = sessionRecords[k] as RequestRecord;
      const where = `session ${session.id} turn ${k}`;
      assert.equal(turn.inputLength, record.promptTokens, where);
      assert.equal(turn.outputLength, record.outputTokens, where);
      assert.equal(turn.timestampMs, Date.parse(record.startedAt) - first, where);
      assert.equal(turn.toolCalls, record.toolCalls ?? 0, where);
      assert.equal(turn.toolResults, record.toolResults ?? 0, where);
      const previous = session.turns[k - 1];
      if (previous === undefined) assert.equal(turn.waitMs, 0, where);
      else {
        // The gateway's wait, but never more than the gap between the two (whole-ms) arrivals.
        const expected = Math.min(
          record.waitBeforeMs as number,
          (turn.timestampMs as number) - (previous.timestampMs as number),
        );
        assert.ok(
          Math.abs(turn.waitMs - expected) <= 0.001,
          `${where}: ${turn.waitMs} ms, expected ${expected}`,
        );
        assert.ok(turn.waitMs >= (WAITS_MS[k] as number) - 1, `${where}: ${turn.waitMs} ms`);
      }
      assert.equal(turn.hashIds.length, Math.ceil(turn.inputLength / BLOCK), where);
      // The conversation grew: this turn begins with the previous one's whole blocks, not with its partial one.
      if (previous !== undefined) {
        const whole = wholeBlocks(previous.inputLength);
        assert.ok(whole > 0, where);
        assert.deepEqual(turn.hashIds.slice(0, whole), previous.hashIds.slice(0, whole), where);
        if (previous.inputLength % BLOCK !== 0)
          assert.notEqual(
            turn.hashIds[whole],
            previous.hashIds[whole],
            `${where}: a partial block is not shared`,
          );
      }
    });
  });
  // Sessions of one protocol open with one system prompt: their first blocks are one; other protocols' are not.
  const openers = [...byApi.values()].map((sessions) => sessions.map((s) => s.turns[0]?.hashIds[0]));
  for (const ids of openers) assert.equal(new Set(ids).size, 1, `one opening block: ${ids}`);
  assert.equal(new Set(openers.map((ids) => ids[0])).size, openers.length, 'each protocol its own opening');
});

const GOOD = {
  session_id: 's0',
  turn: 0,
  timestamp: 0,
  wait_ms: 0,
  input_length: 20,
  output_length: 5,
  hash_ids: [0, 1],
  block_size: BLOCK,
  api: 'chat',
  tool_calls: 1,
  tool_results: 0,
};
const NEXT = {
  ...GOOD,
  turn: 1,
  timestamp: 100,
  wait_ms: 50,
  input_length: 40,
  hash_ids: [0, 2, 3],
  tool_results: 1,
};

const BAD_TRACES: readonly { name: string; lines: readonly unknown[]; says: RegExp }[] = [
  {
    name: 'a missing field',
    lines: [{ ...GOOD, output_length: undefined }],
    says: /^line 1: 'output_length' is missing/,
  },
  {
    name: 'a negative length',
    lines: [{ ...GOOD, output_length: -1 }],
    says: /^line 1: 'output_length' must be a whole number, 0 or more \(got -1\)/,
  },
  {
    name: 'a fraction of a token',
    lines: [{ ...GOOD, input_length: 20.5 }],
    says: /^line 1: 'input_length' must be a whole number above 0/,
  },
  {
    name: 'ids that contradict the length',
    lines: [{ ...GOOD, hash_ids: [0] }],
    says: /^line 1: 'hash_ids' holds 1 ids but input_length 20 needs 2 blocks of 16/,
  },
  {
    name: 'a wait on the first turn',
    lines: [{ ...GOOD, wait_ms: 3 }],
    says: /^line 1: 'wait_ms' must be 0 on a session's first turn/,
  },
  {
    name: 'a skipped turn',
    lines: [GOOD, { ...NEXT, turn: 2 }],
    says: /^line 2: 'turn' 2 of session 's0' skips turn 1/,
  },
  {
    name: 'a repeated turn',
    lines: [GOOD, { ...NEXT, turn: 0, wait_ms: 0 }],
    says: /^line 2: 'turn' 0 of session 's0' was already given/,
  },
  {
    name: 'a session that starts past turn 0',
    lines: [{ ...GOOD, turn: 1 }],
    says: /^line 1: 'turn' is 1 but session 's0' has no turn before it/,
  },
  {
    name: 'overlapping turns',
    lines: [GOOD, { ...NEXT, timestamp: 30 }],
    says: /^line 2: turn 1 of session 's0' overlaps turn 0: it arrives 30 ms after it, less than its 'wait_ms' \(50\)/,
  },
  {
    name: 'a turn before the previous one',
    lines: [{ ...GOOD, timestamp: 500 }, NEXT],
    says: /^line 2: turn 1 of session 's0' arrives at 100 ms, before turn 0 \(500 ms\)/,
  },
  {
    name: 'a garbage session id',
    lines: [{ ...GOOD, session_id: 'a b\u0007' }],
    says: /^line 1: 'session_id' must be 1 to 128 printable ASCII characters/,
  },
  {
    name: 'an unknown protocol',
    lines: [{ ...GOOD, api: 'grpc' }],
    says: /^line 1: 'api' must be one of chat, responses, messages, completions \(got "grpc"\)/,
  },
  {
    name: 'two block sizes',
    lines: [GOOD, { ...NEXT, block_size: 512, hash_ids: [0] }],
    says: /^line 2: 'block_size' is 512 but earlier lines use 16/,
  },
  { name: 'a line that is not JSON', lines: ['{"session_id": "s0",'], says: /^line 1: invalid JSON/ },
];

for (const row of BAD_TRACES) {
  test(`trace check refuses ${row.name}: one line, exit 1`, async () => {
    const file = join(folder, `bad-${row.name.replaceAll(' ', '-')}.jsonl`);
    writeFileSync(file, row.lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'));
    const result = await runCli(['trace', 'check', file]);
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stdout, '');
    const prefix = `tokenmeter trace: ${file}: `;
    assert.ok(result.stderr.startsWith(prefix), result.stderr);
    assert.match(result.stderr.slice(prefix.length), row.says);
    assert.equal(result.stderr.split('\n').length, 2, `one line: ${result.stderr}`);
  });
}

const AIPERF_FIXTURE = fileURLToPath(
  new URL('../../../test/loadgen/fixtures/aiperf-session-trace.jsonl', import.meta.url),
);

test("AIPerf's mooncake_trace with session_id and delay: sessions in file order, delays as waits", async () => {
  const trace = await readAiperfSessionTrace(AIPERF_FIXTURE);
  assert.equal(trace.format, 'aiperf');
  assert.equal(trace.blockTokens, 512);
  assert.deepEqual(
    trace.sessions.map((s) => ({
      id: s.id,
      startMs: s.startMs,
      turns: s.turns.map((t) => [t.line, t.waitMs, t.inputLength, t.outputLength, t.hashIds]),
    })),
    [
      {
        id: 'conv-a',
        startMs: 0,
        turns: [
          [1, 0, 1200, 40, [0, 1, 2]],
          [3, 1500, 1700, 60, [0, 1, 2, 3]],
          // No ids: ids of its own, after the file's largest.
          [6, 2000.5, 2100, 80, [8, 9, 10, 11, 12]],
        ],
      },
      {
        id: 'conv-b',
        startMs: 250,
        // Fewer ids than blocks: the rest its own.
        turns: [
          [2, 0, 700, 25, [0, 5]],
          [5, 800, 1100, 30, [0, 5, 7]],
        ],
      },
      { id: 'line 4', startMs: 900, turns: [[4, 0, 300, 10, [6]]] },
    ],
  );
  assert.ok(trace.sessions.every((s) => s.turns.every((t) => t.api === null && t.toolCalls === null)));
  const checked = await runCli(['trace', 'check', AIPERF_FIXTURE, '--format', 'aiperf']);
  assert.equal(checked.code, 0, checked.stderr);
  assert.match(
    checked.stdout,
    /: aiperf agentic trace, 3 sessions, 6 turns \(at most 3 in a session\), blocks of 512 tokens\n$/,
  );
});

test("AIPerf's text modes and a delay before a session's first turn: one line, exit 1", async () => {
  for (const [line, says] of [
    [
      { session_id: 'a', messages: [{ role: 'user', content: 'hi' }], output_length: 4 },
      /'messages' carries text/,
    ],
    [
      { session_id: 'a', delay: 100, input_length: 10, output_length: 4 },
      /'delay' on the first turn of session 'a'/,
    ],
    [{ session_id: 'a', input_length: 10 }, /'output_length' must be a whole number above 0 \(got nothing\)/],
  ] as const) {
    const file = join(folder, 'bad-aiperf.jsonl');
    writeFileSync(file, `${JSON.stringify(line)}\n`);
    const result = await runCli(['trace', 'check', file, '--format', 'aiperf']);
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, says);
    assert.equal(result.stderr.split('\n').length, 2, `one line: ${result.stderr}`);
  }
});

test('export: old records, overlapping turns, mirror copies and implausible counts are counted, turns renumbered', () => {
  const base = {
    role: 'primary',
    protocol: 'openai-chat',
    promptTokens: 40,
    outputTokens: 4,
    e2eMs: 100,
    sessionSource: 'prefix',
    toolCalls: 0,
    toolResults: 0,
  };
  const at = (ms: number): string => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
  const prefixes = (hashes: string[]): [number, number, string][] =>
    hashes.map((hash, i) => [i + 1, (i + 1) * 100, hash]);
  const lines = [
    // Session a: turn 0, a turn 1 whose answer failed before usage (left out), turn 2 overlapping nothing.
    {
      ...base,
      startedAt: at(0),
      sessionId: 'a',
      turn: 0,
      waitBeforeMs: null,
      promptPrefixes: prefixes(['h1']),
    },
    { ...base, startedAt: at(150), sessionId: 'a', turn: 1, waitBeforeMs: 50, promptTokens: null },
    {
      ...base,
      startedAt: at(400),
      sessionId: 'a',
      turn: 2,
      waitBeforeMs: 30,
      promptTokens: 80,
      promptPrefixes: prefixes(['h1', 'h2', 'h3']),
    },
    // A side request of session a, sent while turn 2 was being answered: wait 0, counted.
    {
      ...base,
      startedAt: at(420),
      sessionId: 'a',
      turn: 3,
      waitBeforeMs: null,
      promptPrefixes: prefixes(['x']),
    },
    // An old record: no session fields, no promptPrefixes.
    { ...base, startedAt: at(500) },
    { ...base, startedAt: at(600), role: 'mirror', sessionId: 'a', turn: 4 },
    { ...base, startedAt: at(700), sessionId: 'b', turn: 0, promptTokens: 1e12 },
    // Responses chained by previous_response_id: turn 1 sends only its new input; its prompt holds turn 0's.
    {
      ...base,
      protocol: 'openai-responses',
      startedAt: at(800),
      sessionId: 'c',
      turn: 0,
      promptPrefixes: prefixes(['r0']),
    },
    {
      ...base,
      protocol: 'openai-responses',
      sessionSource: 'previous-response-id',
      startedAt: at(1000),
      sessionId: 'c',
      turn: 1,
      waitBeforeMs: 90,
      promptTokens: 70,
      promptPrefixes: prefixes(['r1-input-only']),
    },
  ];
  const text = `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
  const trace = recordsToAgenticTrace(text, BLOCK);
  assert.deepEqual(trace.skipped, { mirror: 1, withoutTokens: 1, implausible: 1, malformed: 0 });
  assert.equal(trace.sessions, 3);
  assert.equal(trace.unplaced, 1);
  assert.equal(trace.withoutPrefixes, 1);
  assert.equal(trace.continued, 1);
  assert.equal(trace.overlapping, 1);
  assert.deepEqual(
    trace.lines.map((l) => [l.session_id, l.turn, l.timestamp, l.wait_ms, l.input_length, l.hash_ids.length]),
    [
      ['s0', 0, 0, 0, 40, 3],
      // The gateway's turn 1 was left out: the wait is from turn 0's end (0 + 100 ms) to this arrival.
      ['s0', 1, 400, 300, 80, 5],
      ['s0', 2, 420, 0, 40, 3],
      ['s1', 0, 500, 0, 40, 3],
      ['s2', 0, 800, 0, 40, 3],
      ['s2', 1, 1000, 90, 70, 5],
    ],
  );
  // The continued Responses turn begins with its previous turn's whole blocks.
  assert.deepEqual(trace.lines[5]?.hash_ids.slice(0, 2), trace.lines[4]?.hash_ids.slice(0, 2));
  assert.notEqual(trace.lines[5]?.hash_ids[2], trace.lines[4]?.hash_ids[2]);
  // Turn 1 holds turn 0's whole prompt (boundary h1): its whole blocks, 40 tokens = 2 of 16, are shared.
  assert.deepEqual(trace.lines[1]?.hash_ids.slice(0, 2), trace.lines[0]?.hash_ids.slice(0, 2));
  assert.notEqual(trace.lines[1]?.hash_ids[2], trace.lines[0]?.hash_ids[2]);
  // The written trace reads back.
  const read = parseAgenticTrace(trace.lines.map((l) => JSON.stringify(l)).join('\n'), 'exported');
  assert.deepEqual(
    read.sessions.map((s) => s.turns.length),
    [3, 1, 2],
  );
});
