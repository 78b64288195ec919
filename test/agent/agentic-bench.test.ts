// `tokenmeter bench --dataset-name agentic` as a user runs it, against the simulator: the report's Agent sessions
// section and the sessions table (TTFT by turn), the result JSON's new keys beside vLLM's unchanged ones, the HTML
// page's Agent sessions section; bad input
// (missing or contradictory fields, turns of one session that overlap, a tool call the client never answered)
// refused in one line with exit 1 before anything is sent; and a server that fails turns mid-session: every turn
// sent has its record, and the turns after a failed one are counted as not sent, so nothing is lost.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/run-cli.js';
import { bench, cleanEnv, scratchDir } from '../loadgen/helpers/bench-cli.js';
import { exactTiming } from '../loadgen/helpers/bench-fixtures.js';
import { writeTrace } from './helpers/agent-fixtures.js';

let sim: RunningSimulator;
let failing: RunningSimulator;
const SIM = {
  timing: { ...exactTiming(5, 1), eosMedianTokens: 100_000 },
  tools: { callRate: 0.5, maxToolTurns: 100 },
  kv: { enablePrefixCaching: true },
};

before(async () => {
  sim = await startSimulator({ seed: 8, ...SIM });
  failing = await startSimulator({ seed: 9, ...SIM, faults: { errorRate: 0.15, errorStatus: 500 } });
});
after(async () => {
  await sim.close();
  await failing.close();
});

const SHAPE = {
  sessions: 9,
  turns: 3,
  blockSize: 16,
  sharedBlocks: 4,
  growth: 100,
  waitMs: 20,
  finalOutput: 12,
  gapMs: 10,
};

function traceFile(dir: string, text: string): string {
  const path = join(dir, 'trace.jsonl');
  writeFileSync(path, text);
  return path;
}

test('bench replays an agentic trace and answers in agent terms', async () => {
  const dir = scratchDir();
  const trace = traceFile(dir, writeTrace(SHAPE));
  const result = await bench(
    [
      '--base-url',
      sim.url,
      '--dataset-name',
      'agentic',
      '--dataset-path',
      trace,
      '--ignore-eos',
      '--replay-speed',
      '4',
      '--save-result',
      '--result-dir',
      dir,
      '--result-filename',
      'agentic.json',
      '--records-file',
      join(dir, 'records.jsonl'),
      '--html',
      join(dir, 'agentic.html'),
    ],
    cleanEnv(),
  );
  assert.equal(result.code, 0, result.stderr);
  const page = readFileSync(join(dir, 'agentic.html'), 'utf8');
  assert.match(
    page,
    /<h2>Agent sessions<\/h2>.*<caption>Per session<\/caption>.*<th>Tool calls answered<\/th><td>18<\/td>/s,
  );
  assert.match(
    page,
    /<caption>TTFT by turn \(ms, p50 \/ p99\)<\/caption><tbody><tr><th>Turn 1 \(9\/9 ok\)<\/th>/,
  );
  assert.match(result.stdout + result.stderr, /dataset: agentic trace .*\(9 sessions\), 27 requests/);
  assert.match(result.stdout, /-+ Agent sessions -+\nSessions \(completed \/ replayed\):\s+9 \/ 9\n/);
  assert.match(result.stdout, /Turns per session \(mean \/ max\):\s+3\.00 \/ 3\n/);
  assert.match(result.stdout, /Tool calls answered:\s+18\n/);
  assert.match(result.stdout, /-+ Sessions \(agentic trace\) -+\n/);
  assert.match(result.stdout, /Turn {2}ok\/sent.*\n +1 +9\/9 .*\n +2 +9\/9 .*\n +3 +9\/9 /);
  const saved = JSON.parse(readFileSync(join(dir, 'agentic.json'), 'utf8'));
  assert.equal(saved.completed, 27);
  const agent = saved.tokenmeter.agent_sessions;
  assert.equal(agent.sessions, 9);
  assert.equal(agent.completed_sessions, 9);
  assert.equal(agent.tool_calls, 18);
  for (const key of ['session_duration_ms', 'server_time_per_turn_ms', 'wait_late_ms'])
    assert.deepEqual(Object.keys(agent[key]), ['mean', 'p50', 'p99'], key);
  assert.ok(agent.reported_cached_tokens >= agent.expected_cached_tokens);
});

test('bad agentic traces are refused in one line, exit 1, before anything is sent', async () => {
  const dir = scratchDir();
  const good = writeTrace({ ...SHAPE, sessions: 2 })
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const cases: [string, object[], RegExp][] = [
    [
      'a missing field',
      good.map((line, i) => (i === 2 ? { ...line, input_length: undefined } : line)),
      /^tokenmeter bench: \S+trace\.jsonl: line 3: 'input_length' is missing \(it must be a whole number above 0\)$/,
    ],
    [
      'a first turn that waited',
      good.map((line, i) => (i === 0 ? { ...line, wait_ms: 5 } : line)),
      /line 1: 'wait_ms' must be 0 on a session's first turn \(got 5\)$/,
    ],
    [
      'turns of one session that overlap',
      good.map((line, i) => (i === 1 ? { ...line, timestamp: 1 + good[0].timestamp } : line)),
      /line 2: turn 1 of session 's000' overlaps turn 0: it arrives 1 ms after it, less than its 'wait_ms' \(20\) after that turn's answer$/,
    ],
    [
      'a repeated turn',
      good.map((line, i) => (i === 2 ? { ...line, turn: 1 } : line)),
      /line 3: 'turn' 1 of session 's000' was already given \(its turns so far: 0 to 1\)$/,
    ],
    [
      'a tool call the client never answered',
      good.map((line, i) => (i === 1 ? { ...line, tool_results: 0 } : line)),
      /line 2: turn 1 of session 's000' sends no tool result for the 1 tool call turn 0 asked for: a tool call the client never answered cannot be replayed$/,
    ],
    [
      'a session id that is garbage',
      good.map((line, i) => (i === 3 ? { ...line, session_id: 'bad id\u0007' } : line)),
      /line 4: 'session_id' must be 1 to 128 printable ASCII characters/,
    ],
  ];
  for (const [name, lines, message] of cases) {
    const trace = traceFile(dir, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const records = join(dir, `${name.replaceAll(' ', '-')}.jsonl`);
    const result = await bench(
      [
        '--base-url',
        sim.url,
        '--dataset-name',
        'agentic',
        '--dataset-path',
        trace,
        '--records-file',
        records,
      ],
      cleanEnv(),
    );
    assert.equal(result.code, 1, `${name}: ${result.stderr}`);
    const said = result.stderr.trim().split('\n');
    assert.equal(said.length, 1, `${name}: one line (${result.stderr})`);
    assert.match(said[0] as string, message, name);
    assert.equal(existsSync(records), false, `${name}: nothing sent, no records`);
  }
});

test('turns a failing server refused end their sessions: every sent turn recorded, the rest counted', async () => {
  const dir = scratchDir();
  const trace = traceFile(dir, writeTrace({ ...SHAPE, sessions: 12, turns: 4 }));
  const records = join(dir, 'records.jsonl');
  const result = await bench(
    [
      '--base-url',
      failing.url,
      '--dataset-name',
      'agentic',
      '--dataset-path',
      trace,
      '--ignore-eos',
      '--replay-speed',
      '4',
      '--records-file',
      records,
      '--no-success-floor',
    ],
    cleanEnv(),
  );
  assert.equal(result.code, 0, result.stderr);
  const lines = readFileSync(records, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const failed = lines.filter((r) => r.outcome !== 'ok');
  assert.ok(failed.length > 0, 'the server failed some turns');
  const notSent = Number(/Not sent \(earlier turn failed\):\s+(\d+)/.exec(result.stdout)?.[1] ?? 0);
  assert.equal(lines.length + notSent, 48, 'every turn is recorded or counted as not sent');
  // A session's record after a failed turn would carry a history the model never produced.
  for (const f of failed)
    assert.ok(
      !lines.some((r) => r.sessionId === f.sessionId && r.turn > f.turn),
      `${f.sessionId} ended at its failure`,
    );
});

test('an AIPerf session trace replays on --session-rate, and without one says its sessions have no start', async () => {
  const dir = scratchDir();
  // Three sessions of two turns, a 10 ms delay before each second turn; no timestamps, no protocol, no tool counts.
  const lines = [0, 1, 2].flatMap((s) => [
    { session_id: `a${s}`, input_length: 600, output_length: 8, hash_ids: [1, 100 + s] },
    { session_id: `a${s}`, delay: 10, input_length: 900, output_length: 8, hash_ids: [1, 100 + s] },
  ]);
  const trace = traceFile(dir, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  const args = [
    '--base-url',
    sim.url,
    '--dataset-name',
    'aiperf_sessions',
    '--dataset-path',
    trace,
    '--ignore-eos',
  ];
  const none = join(dir, 'none.jsonl');
  const refused = await bench([...args, '--records-file', none], cleanEnv());
  assert.equal(refused.code, 1, refused.stderr);
  assert.equal(existsSync(none), false, 'nothing sent, no records');
  // After the run's header lines, before anything is sent.
  assert.match(
    refused.stderr.trim().split('\n').pop() as string,
    /^tokenmeter bench: \S+trace\.jsonl: its sessions have no start times: start them with --session-rate or --concurrent-sessions$/,
  );
  const result = await bench([...args, '--session-rate', '20', '--no-records'], cleanEnv());
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /Sessions \(completed \/ replayed\):\s+3 \/ 3\n/);
});

test('sweep --search sessions, agentic traces and flags a replay cannot honour are refused, exit 2', async () => {
  const dir = scratchDir();
  const trace = traceFile(dir, writeTrace({ ...SHAPE, sessions: 2 }));
  const cases: [string[], RegExp][] = [
    [
      ['--slo', 'ttft_p99 < 1s', '--search', 'sessions'],
      /--search sessions replays agent sessions: give --dataset-name agentic/,
    ],
    [
      ['--dataset-name', 'agentic', '--dataset-path', trace, '--slo', 'ttft_p99 < 1s'],
      /an agentic trace is swept by its sessions in flight/,
    ],
    [
      ['--dataset-name', 'agentic', '--dataset-path', trace, '--search', 'sessions'],
      /--search sessions needs --slo EXPR/,
    ],
  ];
  for (const [args, message] of cases) {
    const result = await runCli(['sweep', '--base-url', sim.url, ...args], cleanEnv());
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, message);
  }
  const bench = await runCli(
    [
      'bench',
      '--base-url',
      sim.url,
      '--dataset-name',
      'agentic',
      '--dataset-path',
      trace,
      '--request-cancellation-rate',
      '10',
    ],
    cleanEnv(),
  );
  assert.equal(bench.code, 2, bench.stderr);
  assert.match(
    bench.stderr,
    /--dataset-name agentic does not cancel turns yet: drop --request-cancellation-rate/,
  );
});
