// A reasoning model through the load generator, straight to the simulator: the client's own TTFT and TTFO against
// the simulator's ground truth as absolute times (the run in this process, so the truth is on its clock), then the
// real CLI's result JSON keys, its ttfo and reasoning_time thresholds, and compare's TTFO rows between a run that
// reasoned and one that did not. test/measure/reasoning-timing.test.ts checks the same figures per protocol
// through the gateway; this file checks what the run reports and saves from them.
//
// Tolerance: a chunk crosses loopback and waits for the event loop, so it is seen late, never early: 15 ms plus the
// worst stall this process had during the run (timing-accuracy.test.ts's bound), and the client's start is before
// the simulator receives the request, so every measured time is at or after the truth's.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runBench } from '../../loadgen/bench/run-bench.js';
import { benchSettingsFrom } from '../../src/cli/bench-settings.js';
import { DEFAULT_MODEL_NAME } from '../../src/sim/config.js';
import { type RequestTruth, type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { measureStalls } from '../helpers/loop-stall.js';
import { runCli } from '../helpers/run-cli.js';
import { scratchDir } from './helpers/bench-cli.js';

const REASONING_TOKENS = 6;
// 6 reasoning tokens 30 ms apart: answers start about 180 ms in, far from the thresholds' 120 ms either way.
const TIMING = { ttftMs: 30, itlMs: 30, prefillMsPerToken: 0, jitter: 0 };
const BASE_TOLERANCE_MS = 15;
const REQUESTS = 4;

let reasoning: RunningSimulator;
let plain: RunningSimulator;
before(async () => {
  reasoning = await startSimulator({
    timing: TIMING,
    reasoning: { tokens: REASONING_TOKENS, chatField: 'reasoning' },
  });
  plain = await startSimulator({ timing: TIMING });
});
after(async () => {
  await reasoning.close();
  await plain.close();
});

const RANDOM = ['--dataset-name', 'random', '--random-input-len', '16', '--random-output-len', '12'];

for (const engine of ['open-loop', 'closed-loop'] as const) {
  test(`${engine}: the client's TTFT and TTFO are the simulator's first token and first answer token`, async () => {
    const prefix = `abs-${engine}-`;
    const settings = benchSettingsFrom(
      {
        'base-url': reasoning.url,
        'dataset-name': 'random',
        'random-input-len': 16,
        'random-output-len': 12,
        'ignore-eos': true,
        'num-prompts': REQUESTS,
        'request-rate': 20,
        engine,
        'max-concurrency': 2,
        'request-id-prefix': prefix,
        'no-records': true,
        'disable-tqdm': true,
      },
      [],
      {},
      `abs-${engine}`,
    );
    const stalls = measureStalls();
    const result = await runBench({
      settings,
      model: DEFAULT_MODEL_NAME,
      recordsPath: null,
      signal: new AbortController().signal,
      progressStream: { write: () => true, isTTY: false },
    });
    const tolerance = BASE_TOLERANCE_MS + stalls.stop();
    assert.equal(result.records.length, REQUESTS);
    for (const record of result.records) {
      assert.equal(record.outcome, 'ok', record.error ?? '');
      const truth = reasoning.truth(`${prefix}${record.index}`) as RequestTruth;
      assert.ok(truth !== undefined && record.sentAtMs !== null, `truth of request ${record.index}`);
      const sentAt = result.startedAtMs + record.sentAtMs;
      const late = (measured: number | null | undefined, at: number, what: string): void => {
        assert.ok(typeof measured === 'number', `${what}: ${measured}`);
        const by = measured - (at - sentAt);
        assert.ok(
          by >= 0 && by <= tolerance,
          `request ${record.index} ${what} ${measured} ms, late by ${by} ms`,
        );
      };
      late(record.ttftMs, truth.contentChunkEmittedAtMs[0] as number, 'TTFT');
      late(record.ttfoMs, truth.firstAnswerTokenAtMs as number, 'TTFO');
      assert.equal(record.reasoningTokens, REASONING_TOKENS);
    }
  });
}

interface SavedRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly result: Record<string, unknown>;
  readonly path: string;
}

async function cliRun(sim: RunningSimulator, name: string, extra: string[]): Promise<SavedRun> {
  const dir = scratchDir();
  const res = await runCli([
    'bench',
    '--base-url',
    sim.url,
    '--model',
    DEFAULT_MODEL_NAME,
    ...RANDOM,
    '--ignore-eos',
    '--num-prompts',
    String(REQUESTS),
    '--save-detailed',
    '--result-dir',
    dir,
    '--result-filename',
    `${name}.json`,
    '--no-records',
    '--disable-tqdm',
    ...extra,
  ]);
  const path = join(dir, `${name}.json`);
  return {
    code: res.code,
    stdout: res.stdout + res.stderr,
    result: JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>,
    path,
  };
}

const tokenmeterOf = (run: SavedRun): Record<string, unknown> =>
  run.result['tokenmeter'] as Record<string, unknown>;

test("the result JSON's reasoning keys, the ttfo and reasoning_time thresholds, and compare's TTFO rows", async () => {
  const reasoned = await cliRun(reasoning, 'reasoned', [
    '--threshold',
    'ttfo_p50 > 120ms',
    '--threshold',
    'reasoning_time_mean > 50ms',
  ]);
  assert.equal(reasoned.code, 0, reasoned.stdout);
  assert.match(reasoned.stdout, /^pass {2}ttfo_p50 > 120ms: /m);
  assert.match(reasoned.stdout, /^pass {2}reasoning_time_mean > 50ms: /m);
  const t = tokenmeterOf(reasoned);
  assert.equal(t['requests_with_reasoning'], REQUESTS);
  assert.equal(t['reasoning_tokens'], REQUESTS * REASONING_TOKENS);
  assert.deepEqual(t['reasoning_tokens_per_request'], Array(REQUESTS).fill(REASONING_TOKENS));
  const ttfos = t['ttfos_ms'] as number[];
  const ttfts = (reasoned.result['ttfts'] as number[]).map((s) => s * 1000);
  assert.equal(ttfos.length, REQUESTS);
  // Each answer began after its first token (how closely: the in-process test above and
  // test/measure/reasoning-timing.test.ts; a child process's stalls cannot be measured from here).
  for (const [i, ttfo] of ttfos.entries()) assert.ok(ttfo > (ttfts[i] as number), `request ${i}`);
  const ttfo = t['ttfo'] as { count: number; mean_ms: number; percentiles_ms: Record<string, number> };
  assert.equal(ttfo.count, REQUESTS);
  assert.ok(Math.abs(ttfo.mean_ms - ttfos.reduce((a, b) => a + b, 0) / REQUESTS) < 1e-6);
  const reasoningTime = t['reasoning_time'] as { count: number; mean_ms: number };
  assert.equal(reasoningTime.count, REQUESTS);
  assert.ok(
    Math.abs(reasoningTime.mean_ms - (ttfo.mean_ms - (reasoned.result['mean_ttft_ms'] as number))) < 1e-6,
  );
  const thresholds = t['thresholds'] as Array<{ threshold: string; passed: boolean; value: number }>;
  assert.ok(thresholds.some((c) => c.threshold === 'ttfo_p50 > 120ms' && c.passed));

  // A model that does not reason: TTFO is TTFT, no reasoning, and a TTFO threshold that needs reasoning fails.
  const answered = await cliRun(plain, 'plain', ['--threshold', 'ttfo_p50 > 120ms']);
  assert.equal(answered.code, 99, answered.stdout);
  assert.match(answered.stdout, /^FAIL {2}ttfo_p50 > 120ms: /m);
  const p = tokenmeterOf(answered);
  assert.equal(p['requests_with_reasoning'], 0);
  assert.equal(p['reasoning_tokens'], 0);
  assert.deepEqual(
    p['ttfos_ms'],
    (answered.result['ttfts'] as number[]).map((s) => s * 1000),
  );

  const compared = await runCli(['compare', reasoned.path, answered.path]);
  assert.equal(compared.code, 0, compared.stderr);
  for (const label of ['Mean TTFO', 'Median TTFO'])
    assert.match(compared.stdout, new RegExp(`\\n${label}\\b`), `${label} row\n${compared.stdout}`);
  // Neither run reasoned: no TTFO rows.
  const unreasoned = await runCli(['compare', answered.path, answered.path]);
  assert.equal(unreasoned.code, 0, unreasoned.stderr);
  assert.doesNotMatch(unreasoned.stdout, /TTFO/);
});
