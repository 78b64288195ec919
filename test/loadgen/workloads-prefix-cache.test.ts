// Workloads against the prefix-caching simulator (--enable-prefix-caching): the effect of sessions and shared
// prefixes is visible end to end. A session's later turns resend the history, so the simulator finds it cached
// and reports it (`prompt_tokens_details.cached_tokens`), and its ground truth shows the shorter prefill; a
// Mooncake trace's equal hash ids give equal prompt prefixes, which the simulator's cached tokens confirm.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type RequestTruth, type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/run-cli.js';

const folder = mkdtempSync(join(tmpdir(), 'tokenmeter-prefix-cache-'));
const TIMING = { ttftMs: 5, itlMs: 2, prefillMsPerToken: 1, jitter: 0 };

interface ClientRecord {
  readonly index: number;
  readonly turn?: number;
  readonly sessionId?: string;
  readonly outcome: string;
  readonly promptTokens: number;
  readonly cachedPromptTokens?: number | null;
}

function readRecords(path: string): ClientRecord[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as ClientRecord);
}

async function withSim(run: (sim: RunningSimulator) => Promise<void>): Promise<void> {
  const sim = await startSimulator({ timing: TIMING, kv: { enablePrefixCaching: true } });
  try {
    await run(sim);
  } finally {
    await sim.close();
  }
}

const words = (n: number, tag: string): string => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ');

test('multi-turn: later turns are served from the prefix cache, with a shorter prefill, and the turns section says so', async () => {
  await withSim(async (sim) => {
    const dataset = join(folder, 'sessions.json');
    const turns = (id: string) => ({
      id,
      conversations: [1, 2, 3].flatMap((k) => [
        { from: 'human', value: words(40, `${id}q${k}w`) },
        { from: 'gpt', value: words(8, 'reply') },
      ]),
    });
    writeFileSync(dataset, JSON.stringify([turns('a'), turns('b')]));
    const records = join(folder, 'sessions.records.jsonl');
    const prefix = 'mt-';
    const res = await runCli([
      'bench',
      '--base-url',
      sim.url,
      '--model',
      'tokenmeter/sim-7b',
      '--dataset-path',
      dataset,
      '--multi-turn',
      '--num-prompts',
      '2',
      '--request-rate',
      '10',
      '--request-id-prefix',
      prefix,
      '--records-file',
      records,
      '--disable-tqdm',
    ]);
    assert.equal(res.code, 0, res.stderr + res.stdout);
    const lines = readRecords(records);
    assert.equal(lines.length, 6);
    for (const r of lines) {
      assert.equal(r.outcome, 'ok');
      const truth = sim.truth(`${prefix}${r.index}`) as RequestTruth;
      const first = truth.prefills[0];
      assert.ok(first !== undefined, `a prefill for request ${r.index}`);
      assert.equal(r.cachedPromptTokens, truth.cachedTokens, 'the client records what the server reported');
      if (r.turn === 1) {
        assert.equal(truth.cachedTokens, 0, 'a first turn shares nothing');
        continue;
      }
      // Turn k resends turn k-1's whole context: all but its last partial block is found cached.
      assert.ok(
        truth.cachedTokens >= 48,
        `turn ${r.turn}: ${truth.cachedTokens} cached of ${first.contextTokens}`,
      );
      const uncachedMs = TIMING.ttftMs + TIMING.prefillMsPerToken * first.contextTokens;
      assert.ok(
        first.plannedMs < uncachedMs - 40,
        `turn ${r.turn}: prefill ${first.plannedMs} ms, uncached ${uncachedMs}`,
      );
    }
    // The prompt grows with the history; the section shows the cached share per turn.
    const byTurn = (k: number) => lines.filter((r) => r.turn === k);
    assert.ok((byTurn(3)[0]?.promptTokens ?? 0) > (byTurn(2)[0]?.promptTokens ?? 0));
    assert.ok((byTurn(2)[0]?.promptTokens ?? 0) > (byTurn(1)[0]?.promptTokens ?? 0));
    const row = (k: number) => new RegExp(`\\n\\s+${k}\\s+2/2\\s+\\d+\\s+(\\d+) `).exec(res.stdout)?.[1];
    assert.equal(row(1), '0');
    assert.ok(Number(row(2)) >= 48, `turn 2's cached column: ${row(2)}\n${res.stdout}`);
  });
});

test('Mooncake: equal hash ids give equal prompt prefixes, which the simulator finds cached', async () => {
  await withSim(async (sim) => {
    const trace = join(folder, 'trace.jsonl');
    writeFileSync(
      trace,
      [
        '{"timestamp": 0, "input_length": 48, "output_length": 2, "hash_ids": [1, 2, 3]}',
        '{"timestamp": 400, "input_length": 48, "output_length": 2, "hash_ids": [1, 2, 9]}',
        '{"timestamp": 800, "input_length": 48, "output_length": 2, "hash_ids": [7, 8, 9]}',
      ].join('\n'),
    );
    const records = join(folder, 'trace.records.jsonl');
    const prefix = 'mc-';
    const res = await runCli([
      'bench',
      '--backend',
      'openai',
      '--endpoint',
      '/v1/completions',
      '--base-url',
      sim.url,
      '--model',
      'tokenmeter/sim-7b',
      '--dataset-name',
      'mooncake',
      '--dataset-path',
      trace,
      '--trace-block-tokens',
      '16',
      '--request-id-prefix',
      prefix,
      '--records-file',
      records,
      '--disable-tqdm',
    ]);
    assert.equal(res.code, 0, res.stderr + res.stdout);
    const cached = readRecords(records)
      .sort((a, b) => a.index - b.index)
      .map((r) => (sim.truth(`${prefix}${r.index}`) as RequestTruth).cachedTokens);
    // The second shares blocks 1 and 2 with the first (32 tokens); the third shares nothing.
    assert.deepEqual(cached, [0, 32, 0]);
  });
});
