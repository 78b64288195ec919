// Per-token gaps where the server says how many tokens a chunk carries, end to end: the simulator writes
// multi-token chunks (speculative decoding: 1 + accepted drafts per step; or a fixed number of tokens per chunk)
// with vLLM's continuous_usage_stats (a running usage on every chunk), behind the gateway, driven by the load
// generator with --per-chunk-usage through both engines. The chunks' tokens and the multi-token chunks are exact
// against the simulator's ground truth (tokensPerChunk), in both records, the summary and the result JSON; each
// per-token gap is the chunk's gap over its tokens within the gateway's timing-fidelity bound. Without the flag
// nothing of it appears. Simulator and gateway run in this process (one performance.now() clock); the load
// generator runs as the real CLI, so its figures are checked against the truth's own intervals.
//
// Tolerance: 25 ms per timestamp, the gateway's timing-fidelity bound (test/gateway/timing-fidelity.test.ts: a
// chunk crosses loopback and waits for an event loop, so it is seen late, never early). A gap is the difference of
// two such timestamps, so it may be off by the bound either way.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RequestRecord as GatewayRecord } from '../../src/gateway/records/record.js';
import { perTokenGaps } from '../../src/measure/stream-figures.js';
import { type RequestTruth, type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { runCli } from '../helpers/run-cli.js';

const TOLERANCE_MS = 25;
const PROMPTS = 4;
const OUTPUT_TOKENS = 24;
const BASE = { ttftMs: 40, itlMs: 20, prefillMsPerToken: 0, jitter: 0, batchSlowdown: 0 };
const folder = mkdtempSync(join(tmpdir(), 'tokenmeter-per-chunk-usage-'));

interface Case {
  readonly name: string;
  readonly timing: Record<string, number>;
}
const CASES: Case[] = [
  { name: 'speculative decoding', timing: { ...BASE, speculativeTokens: 3, specAcceptanceRate: 0.6 } },
  { name: '5 tokens per chunk', timing: { ...BASE, tokensPerChunk: 5 } },
];

interface ClientRecord {
  readonly index: number;
  readonly outcome: string;
  readonly itlMs: number[];
  readonly contentChunks: number;
  readonly chunkTokens?: number[];
  readonly multiTokenChunks?: number;
  readonly perTokenItlMs?: number;
}

function truthGaps(truth: RequestTruth): number[] {
  const at = truth.contentChunkEmittedAtMs;
  return at.slice(1).map((t, i) => t - (at[i] as number));
}

function multiTokenChunks(truth: RequestTruth): number {
  return truth.tokensPerChunk.filter((k) => k > 1).length;
}

/** The truth's mean per-token gap: first to last chunk over the tokens after the first chunk. */
function truthPerTokenMean(truth: RequestTruth): number {
  const at = truth.contentChunkEmittedAtMs;
  const after = truth.completionTokens - (truth.tokensPerChunk[0] as number);
  return ((at[at.length - 1] as number) - (at[0] as number)) / after;
}

function near(actual: number | undefined, truth: number, what: string): void {
  assert.ok(typeof actual === 'number', `${what}: ${actual}`);
  assert.ok(
    Math.abs(actual - truth) <= TOLERANCE_MS,
    `${what} ${actual.toFixed(2)} ms, truth ${truth.toFixed(2)} ms`,
  );
}

async function bench(gateway: TestGateway, prefix: string, extra: string[]) {
  const records = join(folder, `${prefix}records.jsonl`);
  const resultDir = mkdtempSync(join(folder, `${prefix}result-`));
  const res = await runCli([
    'bench',
    '--backend',
    'openai-chat',
    '--base-url',
    gateway.url,
    '--model',
    'tokenmeter/sim-7b',
    '--dataset-name',
    'random',
    '--random-input-len',
    '16',
    '--random-output-len',
    String(OUTPUT_TOKENS),
    '--ignore-eos',
    '--num-prompts',
    String(PROMPTS),
    '--max-concurrency',
    '2',
    '--request-id-prefix',
    prefix,
    '--records-file',
    records,
    '--save-detailed',
    '--result-dir',
    resultDir,
    '--disable-tqdm',
    ...extra,
  ]);
  assert.equal(res.code, 0, res.stderr + res.stdout);
  const client = readFileSync(records, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as ClientRecord);
  const [file] = readdirSync(resultDir).filter((name) => name.endsWith('.json'));
  const result = JSON.parse(readFileSync(join(resultDir, file as string), 'utf8')) as {
    tokenmeter: Record<string, unknown>;
  };
  return { stdout: res.stdout, client, result };
}

for (const c of CASES) {
  for (const engine of ['open-loop', 'closed-loop'] as const) {
    test(`${c.name}, ${engine}: tokens per chunk exact, per-token ITL = chunk gap / k, multi-token share exact`, async () => {
      const sim: RunningSimulator = await startSimulator({ timing: c.timing });
      const gateway: TestGateway = await startGateway({
        upstreams: [{ name: 'sim', baseUrl: `${sim.url}/v1`, keyless: true }],
        records: { gaps: true },
      });
      try {
        const prefix = `pcu-${engine}-${c.timing['tokensPerChunk'] ?? 'spec'}-`;
        const run = await bench(gateway, prefix, ['--engine', engine, '--per-chunk-usage']);
        let chunks = 0;
        let multi = 0;
        const truthPerToken: number[] = [];
        /** Each chunk's per-token gap against the truth's. */
        const deviations: { off: number; what: string }[] = [];
        assert.equal(run.client.length, PROMPTS);
        for (const record of run.client) {
          assert.equal(record.outcome, 'ok');
          const truth = sim.truth(`${prefix}${record.index}`) as RequestTruth;
          assert.ok(truth !== undefined, `truth of request ${record.index}`);
          assert.equal(truth.completionTokens, OUTPUT_TOKENS);
          assert.deepEqual(record.chunkTokens, truth.tokensPerChunk, `request ${record.index} chunk tokens`);
          assert.equal(record.multiTokenChunks, multiTokenChunks(truth));
          chunks += truth.tokensPerChunk.length;
          multi += multiTokenChunks(truth);
          // Each per-token gap is its chunk's gap over the chunk's tokens, the chunk's gap within the bound.
          const measured = perTokenGaps(record.itlMs, record.chunkTokens as number[]);
          const expected = perTokenGaps(truthGaps(truth), truth.tokensPerChunk);
          assert.equal(measured.length, OUTPUT_TOKENS - (truth.tokensPerChunk[0] as number));
          assert.equal(measured.length, expected.length);
          let at = 0;
          truth.tokensPerChunk.slice(1).forEach((k, i) => {
            const off = Math.abs((measured[at] as number) - (truthGaps(truth)[i] as number) / k);
            deviations.push({ off, what: `request ${record.index} chunk ${i + 1}` });
            assert.ok(Math.abs((measured[at] as number) * k - (record.itlMs[i] as number)) < 1e-9);
            at += k;
          });
          near(record.perTokenItlMs, truthPerTokenMean(truth), `request ${record.index} mean per-token ITL`);
          truthPerToken.push(...expected);
        }
        // Per chunk, within the fidelity bound but for the rare chunk read together with the one before it on a
        // loaded machine (its gap near 0, the next one's doubled: seen once in ten runs at a load average of 5),
        // which the per-request means above absorb.
        deviations.sort((a, b) => a.off - b.off);
        const p90 = deviations[Math.floor(deviations.length * 0.9)];
        assert.ok(
          p90 !== undefined && p90.off <= TOLERANCE_MS,
          `p90 per-token deviation: ${JSON.stringify(p90)}`,
        );
        // Speculative decoding gives a mix; a fixed 5 tokens per chunk gives every chunk but the last 5.
        assert.ok(multi > 0 && multi <= chunks, `${multi} of ${chunks} chunks`);
        const share = multi / chunks;
        assert.match(run.stdout, /Requests with per-chunk usage:\s+4\b/);
        assert.match(run.stdout, new RegExp(`Multi-token chunks \\(%\\):\\s+${(share * 100).toFixed(2)}\\b`));
        assert.match(run.stdout, /Mean per-token ITL \(ms\):/);
        // vLLM's own lines stay per chunk.
        assert.match(run.stdout, /Mean ITL \(ms\):/);
        const usage = run.result.tokenmeter['per_chunk_usage'] as Record<string, number>;
        assert.deepEqual(usage, {
          requests: PROMPTS,
          chunks,
          multi_token_chunks: multi,
          multi_token_chunk_share: share,
        });
        const perTokenItl = run.result.tokenmeter['per_token_itl'] as Record<string, number>;
        assert.equal(perTokenItl['count'], truthPerToken.length);
        const truthMean = truthPerToken.reduce((a, b) => a + b, 0) / truthPerToken.length;
        near(perTokenItl['mean_ms'], truthMean, 'pooled per-token ITL mean');
        const detailed = run.result.tokenmeter['chunk_tokens'] as number[][];
        assert.equal(detailed.length, PROMPTS);

        const gatewayRecords: GatewayRecord[] = await gateway.recordsAfter(PROMPTS);
        for (const record of gatewayRecords) {
          const truth = sim.truth(record.requestId) as RequestTruth;
          assert.ok(truth !== undefined, `truth of ${record.requestId}`);
          assert.deepEqual(
            record.chunkTokens,
            truth.tokensPerChunk,
            `${record.requestId} gateway chunk tokens`,
          );
          assert.equal(record.multiTokenChunks, multiTokenChunks(truth));
          assert.equal(record.maxTokensPerChunk, Math.max(...truth.tokensPerChunk));
          near(record.perTokenItlMs, truthPerTokenMean(truth), `${record.requestId} gateway per-token ITL`);
        }
      } finally {
        await gateway.close();
        await sim.close();
      }
    });
  }
}

test('without --per-chunk-usage nothing of it appears: no usage on chunks, records, lines or keys', async () => {
  const sim = await startSimulator({ timing: (CASES[0] as Case).timing });
  const gateway = await startGateway({
    upstreams: [{ name: 'sim', baseUrl: `${sim.url}/v1`, keyless: true }],
    records: { gaps: true },
  });
  try {
    const run = await bench(gateway, 'pcu-off-', []);
    for (const record of run.client) {
      assert.equal(record.outcome, 'ok');
      assert.equal(record.chunkTokens, undefined);
      assert.equal(record.multiTokenChunks, undefined);
      assert.equal(record.perTokenItlMs, undefined);
    }
    assert.doesNotMatch(run.stdout, /per-chunk usage|Multi-token chunks|per-token ITL/);
    for (const key of ['per_chunk_usage', 'per_token_itl', 'chunk_tokens'])
      assert.ok(!(key in run.result.tokenmeter), key);
    for (const record of await gateway.recordsAfter(PROMPTS)) {
      assert.equal(record.chunkTokens, undefined);
      assert.equal(record.multiTokenChunks, undefined);
      assert.equal(record.perTokenItlMs, undefined);
    }
  } finally {
    await gateway.close();
    await sim.close();
  }
});
