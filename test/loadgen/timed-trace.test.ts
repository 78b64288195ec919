// vLLM's timed_trace dataset replayed through the real CLI against the prefix-caching simulator: lines in file order,
// the first --num-prompts of them, each sent at its own timestamp (x --timed-trace-sec-multiplier, counted from the
// run's start, never before the line above it), with prompts of --timed-trace-chunk-hash-size tokens per hash id
// that end where the ids end, and answers run to the trace's output length (ignore_eos). The fixture is
// test/loadgen/fixtures/timed-trace/mooncake-ms.jsonl: Mooncake-style milliseconds, so the multiplier is 0.001.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { blockPrompt } from '../../loadgen/traces/block-prompts.js';
import { type RequestTruth, startSimulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/run-cli.js';
import { bench, cleanEnv, scratchDir } from './helpers/bench-cli.js';

const TRACE = fileURLToPath(
  new URL('../../../test/loadgen/fixtures/timed-trace/mooncake-ms.jsonl', import.meta.url),
);
/** The load generator's own delay between a request's intended time and its send (multi-turn.test.ts's bound). */
const SCHEDULE_LAG_BOUND_MS = 250;

interface ClientRecord {
  readonly index: number;
  readonly outcome: string;
  readonly intendedOffsetMs: number;
  readonly sentAtMs: number;
  readonly clientQueueMs: number;
  readonly promptTokens: number;
  readonly outputTokens: number;
}

test('a timed trace: file order, its timestamps as send times, prompts from its hash ids, its output lengths', async () => {
  const sim = await startSimulator({
    timing: { ttftMs: 5, itlMs: 2, prefillMsPerToken: 0.1, jitter: 0 },
    kv: { enablePrefixCaching: true },
  });
  try {
    const dir = scratchDir();
    const records = join(dir, 'timed.records.jsonl');
    const prefix = 'tt-';
    const res = await bench(
      [
        '--backend',
        'openai',
        '--base-url',
        sim.url,
        '--model',
        'tokenmeter/sim-7b',
        '--dataset-name',
        'timed_trace',
        '--dataset-path',
        TRACE,
        '--timed-trace-sec-multiplier',
        '0.001',
        '--num-prompts',
        '5',
        '--request-id-prefix',
        prefix,
        '--records-file',
        records,
        '--disable-tqdm',
      ],
      cleanEnv(),
    );
    assert.equal(res.code, 0, res.stderr + res.stdout);
    // What the header says about the trace, each in one line.
    assert.match(res.stderr, /timed trace: 5 requests in file order/);
    assert.match(res.stderr, /the first request is sent 0\.100 s after the start/);
    assert.match(res.stderr, /1 requests' hash ids cover fewer tokens than their input length/);
    assert.match(res.stderr, /1 lines have a timestamp earlier than a line above them/);
    assert.match(
      res.stderr,
      /skipped 1 malformed lines: line 6: 'output_length' must be a whole number above 0 \(the line has no 'output_length'; its fields: timestamp, input_length, hash_ids\)/,
    );
    assert.match(res.stderr, /ignore_eos is sent so each answer runs to its output length/);

    const client = readFileSync(records, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ClientRecord)
      .sort((a, b) => a.index - b.index);
    assert.ok(client.every((r) => r.outcome === 'ok'));
    // Lines 1-5 (line 6 is malformed, line 7 is past --num-prompts); line 4 (600 ms) waits for line 3 (700 ms).
    assert.deepEqual(
      client.map((r) => r.intendedOffsetMs),
      [100, 400, 700, 700, 1000],
    );
    for (const r of client) {
      const lag = r.sentAtMs - r.intendedOffsetMs - r.clientQueueMs;
      assert.ok(lag >= 0 && lag < SCHEDULE_LAG_BOUND_MS, `request ${r.index}: schedule lag ${lag} ms`);
    }
    // The server saw them as far apart as the trace says (its own clock, the same bound).
    const truths = client.map((r) => sim.truth(`${prefix}${r.index}`) as RequestTruth);
    const firstAt = truths[0]?.receivedAtMs ?? 0;
    for (const [i, truth] of truths.entries()) {
      const apart = truth.receivedAtMs - firstAt;
      const planned = (client[i]?.intendedOffsetMs ?? 0) - 100;
      assert.ok(
        Math.abs(apart - planned) < SCHEDULE_LAG_BOUND_MS,
        `request ${i}: ${apart} ms, trace ${planned}`,
      );
    }
    // Prompts: 16 tokens per id, cut to the input length, ending where the ids end (line 3: 2 ids for 64 tokens).
    assert.deepEqual(
      client.map((r) => r.promptTokens),
      [40, 40, 32, 20, 24],
    );
    assert.deepEqual(
      truths.map((t) => t.promptTokens),
      [40, 40, 32, 20, 24],
    );
    // Answers run to the trace's output length.
    assert.deepEqual(
      client.map((r) => r.outputTokens),
      [4, 3, 5, 2, 6],
    );
    // Equal ids, equal prefixes: line 2 starts with ids 1 and 2 of line 1, lines 3 and 5 with id 1.
    assert.deepEqual(
      truths.map((t) => t.cachedTokens),
      [0, 32, 16, 0, 16],
    );
  } finally {
    await sim.close();
  }
});

test("a block cut short is text of its own, as vLLM keys blocks by id and length (the Mooncake replay cuts the id's block)", () => {
  const options = { blockTokens: 16, uniqueSalt: 'x' };
  const whole = blockPrompt([3], 16, options).split(' ');
  const cut = blockPrompt([3], 8, { ...options, cutBlockOwnText: true }).split(' ');
  assert.equal(cut.length, 8);
  assert.notDeepEqual(cut, whole.slice(0, 8));
  assert.deepEqual(blockPrompt([3], 8, options).split(' '), whole.slice(0, 8));
  // Whole blocks are the same text either way, so two replays of one id share a prefix.
  assert.deepEqual(
    blockPrompt([3, 4], 24, { ...options, cutBlockOwnText: true })
      .split(' ')
      .slice(0, 16),
    whole,
  );
});

test('a rate sweep over a self-timed trace is refused: every level would replay the same timestamps', async () => {
  const res = await runCli([
    'sweep',
    '--base-url',
    'http://127.0.0.1:9',
    '--model',
    'm',
    '--rates',
    '1,2',
    '--dataset-name',
    'timed_trace',
    '--dataset-path',
    TRACE,
  ]);
  assert.equal(res.code, 2, res.stderr);
  assert.match(
    res.stderr,
    /a rate sweep sets each level's --request-rate, which a self-timed timed_trace ignores: add --no-self-timed/,
  );
});
