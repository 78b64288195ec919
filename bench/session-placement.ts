// What placing a request in its session costs the gateway (src/gateway/sessions/sessions.ts, conversation.ts), per
// request, on agent-like bodies: a Claude Code-like turn (20 tools, a system prompt, a growing conversation of
// tool calls and results) at about 60 KB, 300 KB and 1 MB. For each: the body scan the gateway runs anyway (now
// also noting where each message lies), the body's session ids and tool results (conversation.ts: every request
// with a conversation pays it), the conversation's hashes (only a request whose client sends no session id: prefix
// chaining), the prompt's prefix hashes for the record (every request with a conversation; prompt-prefixes.ts)
// alone and with the chain's in the same pass, the table's lookup and update, and for comparison JSON.parse of
// the whole body (what reading the conversation by parsing would cost).
// Medians of the rounds, in microseconds per request. Not part of `npm test`. Run from the repository root:
//
//   npm run build && node dist/bench/session-placement.js [rounds, default 9]
import { performance } from 'node:perf_hooks';
import { parseBodyBytes } from '../src/gateway/request-path/request-body.js';
import { conversationFacts } from '../src/gateway/sessions/conversation.js';
import { SessionTable } from '../src/gateway/sessions/sessions.js';

const rounds = Number(process.argv[2] ?? 9);

function agentBody(turns: number, resultChars: number): Buffer {
  const tools = Array.from({ length: 20 }, (_, i) => ({
    name: `tool_${i}`,
    description: 'Runs a thing the agent needs. '.repeat(20),
    input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  }));
  const messages: unknown[] = [{ role: 'user', content: 'Fix the failing test in src/parser.ts, please.' }];
  for (let t = 0; t < turns; t++) {
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Step ${t}: reading the file.` },
        { type: 'tool_use', id: `toolu_${t}`, name: 'tool_1', input: { path: `src/file_${t}.ts` } },
      ],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `toolu_${t}`, content: 'x'.repeat(resultChars) }],
    });
  }
  const body = {
    model: 'claude-sonnet',
    max_tokens: 32000,
    system: [{ type: 'text', text: 'You are a coding agent. '.repeat(400) }],
    messages,
    tools,
    stream: true,
  };
  return Buffer.from(JSON.stringify(body));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function timePerCall(calls: number, run: () => void): number {
  const start = performance.now();
  for (let i = 0; i < calls; i++) run();
  return ((performance.now() - start) * 1000) / calls;
}

const cases = [
  { name: '~60 KB, 15 turns', body: agentBody(15, 1000) },
  { name: '~300 KB, 60 turns', body: agentBody(60, 4000) },
  { name: '~1 MB, 200 turns', body: agentBody(200, 4500) },
];
console.log(`rounds: ${rounds}; microseconds per request, median of rounds`);
console.log(
  'body                          bytes   msgs   scan  ids+tools  hashes  prefixes  both  table  JSON.parse',
);
for (const { name, body } of cases) {
  const calls = Math.max(20, Math.round(4e7 / body.length));
  const scan: number[] = [];
  const facts: number[] = [];
  const hashes: number[] = [];
  const prefixes: number[] = [];
  const both: number[] = [];
  const table: number[] = [];
  const parse: number[] = [];
  const parsed = parseBodyBytes(body);
  const conversation = conversationFacts(parsed, 'messages');
  conversation?.chain();
  for (let r = 0; r < rounds; r++) {
    scan.push(timePerCall(calls, () => parseBodyBytes(body)));
    facts.push(timePerCall(calls, () => conversationFacts(parsed, 'messages')));
    hashes.push(timePerCall(calls, () => conversationFacts(parsed, 'messages')?.chain()));
    prefixes.push(
      timePerCall(calls, () => conversationFacts(parsed, 'messages')?.promptPrefixes('messages')),
    );
    both.push(
      timePerCall(calls, () => {
        const facts = conversationFacts(parsed, 'messages');
        facts?.chain();
        facts?.promptPrefixes('messages');
      }),
    );
    // The table's own work, the conversation's hashes already made (memoized in `conversation`).
    const sessions = new SessionTable();
    let now = 0;
    table.push(
      timePerCall(calls, () => {
        const turn = sessions.begin({}, conversation, now++);
        if (turn !== undefined) sessions.end(turn, now, undefined);
      }),
    );
    parse.push(timePerCall(calls, () => JSON.parse(body.toString('utf8'))));
  }
  console.log(
    `${name.padEnd(26)} ${String(body.length).padStart(8)} ${String(conversation?.length).padStart(6)} ` +
      `${median(scan).toFixed(0).padStart(6)} ${median(facts).toFixed(0).padStart(10)} ` +
      `${(median(hashes) - median(facts)).toFixed(0).padStart(7)} ` +
      `${(median(prefixes) - median(facts)).toFixed(0).padStart(9)} ${(median(both) - median(facts)).toFixed(0).padStart(5)} ` +
      `${median(table).toFixed(1).padStart(6)} ` +
      `${median(parse).toFixed(0).padStart(11)}`,
  );
}
