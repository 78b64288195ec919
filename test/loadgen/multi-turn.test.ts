// `bench --multi-turn`: each ShareGPT conversation is a session; turn k sends the whole history with the answers
// the model actually gave (not the dataset's), after the think time; a failed turn ends its session and the turns
// after it are counted, not sent; records carry session and turn; the report and the result JSON split TTFT and
// E2E by turn. The upstream answers every request with a text of its own ("answer-N") and keeps every body.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chatChunk, startUpstream, type TestUpstream, usageChunk } from '../gateway/helpers/upstream.js';
import { runCli } from '../helpers/run-cli.js';

let upstream: TestUpstream;
let answered = 0;
const folder = mkdtempSync(join(tmpdir(), 'tokenmeter-multi-turn-'));
const THINK_MS = 150;

interface Message {
  readonly role: string;
  readonly content: string;
}

before(async () => {
  upstream = await startUpstream((req, res, body) => {
    // Only the API is answered: the load generator also looks for the server's /metrics (none here).
    if (req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    const messages = (JSON.parse(body.toString()) as { messages: Message[] }).messages;
    const last = messages.at(-1)?.content ?? '';
    if (last.includes('FAIL')) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"scripted failure"}}');
      return;
    }
    const answer = `answer-${++answered}`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(
      chatChunk({ role: 'assistant', content: '' }) +
        chatChunk({ content: answer }) +
        chatChunk({}, 'stop') +
        usageChunk(messages.length * 3, 1) +
        'data: [DONE]\n\n',
    );
  });
});
after(() => upstream.close());

function conversation(id: string, users: string[]): unknown {
  return {
    id,
    conversations: users.flatMap((text) => [
      { from: 'human', value: text },
      { from: 'gpt', value: 'the dataset reply that must never be sent back' },
    ]),
  };
}

const DATASET = join(folder, 'sessions.json');
writeFileSync(
  DATASET,
  JSON.stringify([
    conversation('a', ['a one', 'a two', 'a three']),
    conversation('b', ['b one', 'b two FAIL', 'b three']),
    conversation('c', ['c one', 'c two', 'c three']),
  ]),
);

interface Record {
  readonly sessionId: string;
  readonly turn: number;
  readonly outcome: string;
  readonly intendedOffsetMs: number;
  readonly sentAtMs: number;
  readonly lastTokenMs: number | null;
  readonly clientQueueMs: number;
}

test('turn k carries the answers the model gave; think time honoured; a failed turn ends its session', async () => {
  const records = join(folder, 'run.records.jsonl');
  const before = upstream.requests.length;
  const res = await runCli([
    'bench',
    '--base-url',
    upstream.url,
    '--model',
    'm',
    '--dataset-path',
    DATASET,
    '--multi-turn',
    '--num-prompts',
    '3',
    '--think-time-ms',
    String(THINK_MS),
    '--request-rate',
    '20',
    '--records-file',
    records,
    '--save-result',
    '--result-dir',
    folder,
    '--result-filename',
    'run.json',
    '--disable-tqdm',
    '--no-success-floor',
  ]);
  assert.equal(res.code, 0, res.stderr + res.stdout);
  const bodies = upstream.requests
    .slice(before)
    .filter((r) => r.method === 'POST')
    .map((r) => (JSON.parse(r.body.toString()) as { messages: Message[] }).messages);
  // a: 3 turns, b: 2 (its second fails), c: 3.
  assert.equal(bodies.length, 8);
  const third = bodies.find((m) => m.at(-1)?.content === 'a three') as Message[];
  assert.deepEqual(
    third.map((m) => m.role),
    ['user', 'assistant', 'user', 'assistant', 'user'],
  );
  assert.deepEqual(
    third.filter((m) => m.role === 'user').map((m) => m.content),
    ['a one', 'a two', 'a three'],
  );
  for (const message of third.filter((m) => m.role === 'assistant'))
    assert.match(message.content, /^answer-\d+$/);
  assert.ok(
    !bodies.some((m) => m.some((x) => x.content.includes('dataset reply'))),
    "the dataset's replies are never sent",
  );
  assert.ok(!bodies.some((m) => m.at(-1)?.content === 'b three'), 'no turn after a failed one');

  const lines = readFileSync(records, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record);
  assert.deepEqual(lines.map((r) => `${r.sessionId}${r.turn}`).sort(), [
    'a1',
    'a2',
    'a3',
    'b1',
    'b2',
    'c1',
    'c2',
    'c3',
  ]);
  // Each later turn is due THINK_MS after its previous turn's last token, and leaves no earlier. How much later
  // (schedule lag) is the load generator's own delay, reported as such; the bound is loose on purpose: on this
  // 2-core box at load average 16 a send left 37 ms late, on a quiet box it is under 2 ms.
  for (const r of lines.filter((x) => x.turn > 1)) {
    const previous = lines.find((x) => x.sessionId === r.sessionId && x.turn === r.turn - 1) as Record;
    const previousEnd = previous.sentAtMs + (previous.lastTokenMs ?? 0);
    const thought = r.intendedOffsetMs - previousEnd;
    assert.ok(Math.abs(thought - THINK_MS) < 1e-6, `think time ${thought} ms (asked ${THINK_MS})`);
    const lag = r.sentAtMs - r.intendedOffsetMs - r.clientQueueMs;
    assert.ok(lag >= 0 && lag < 250, `schedule lag ${lag} ms`);
  }
  assert.match(res.stdout, /Sessions \(--multi-turn\)/);
  assert.match(res.stdout, /Turns sent \/ planned:\s+8 \/ 9/);
  assert.match(res.stdout, /Not sent \(earlier turn failed\):\s+1/);
  assert.match(res.stdout, /\n\s+1\s+3\/3 /);
  assert.match(res.stdout, /\n\s+2\s+2\/3 /);
  const saved = JSON.parse(readFileSync(join(folder, 'run.json'), 'utf8')) as {
    tokenmeter: {
      sessions: { turns_planned: number; turns: { turn: number; completed: number; p50_ttft_ms: number }[] };
    };
  };
  assert.equal(saved.tokenmeter.sessions.turns_planned, 9);
  assert.deepEqual(
    saved.tokenmeter.sessions.turns.map((t) => [t.turn, t.completed]),
    [
      [1, 3],
      [2, 2],
      [3, 2],
    ],
  );
  assert.ok(saved.tokenmeter.sessions.turns.every((t) => t.p50_ttft_ms > 0));
});

test('--multi-turn refuses what cannot be a session, in one line, exit 2', async () => {
  const cases: [string[], RegExp][] = [
    [['--dataset-name', 'random'], /--multi-turn replays ShareGPT conversations/],
    [
      ['--backend', 'openai', '--endpoint', '/v1/completions'],
      /needs a backend whose bodies carry a conversation/,
    ],
    [['--engine', 'closed-loop'], /runs sessions on the open-loop schedule/],
    [['--duration', '5s'], /drop --duration/],
  ];
  for (const [extra, message] of cases) {
    const res = await runCli(['bench', '--base-url', upstream.url, '--model', 'm', '--multi-turn', ...extra]);
    assert.equal(res.code, 2, `${extra.join(' ')}: ${res.stderr}`);
    assert.match(res.stderr, message);
  }
  const alone = await runCli(['bench', '--base-url', upstream.url, '--model', 'm', '--max-turns', '2']);
  assert.equal(alone.code, 2);
  assert.match(alone.stderr, /--max-turns needs --multi-turn/);
  const think = await runCli([
    'bench',
    '--base-url',
    upstream.url,
    '--model',
    'm',
    '--multi-turn',
    '--think-time-ms',
    '9-3',
  ]);
  assert.equal(think.code, 2);
  assert.match(think.stderr, /--think-time-ms takes MS or MIN-MAX/);
});
