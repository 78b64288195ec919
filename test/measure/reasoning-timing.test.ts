// Reasoning-aware timing, end to end: the simulator in reasoning mode (R reasoning tokens, then the answer) behind
// the gateway, driven by the load generator's two engines. For every protocol that reasons (chat with either
// spelling of the reasoning delta, Responses, Anthropic Messages) the gateway's and the client's TTFT stop at the
// first reasoning token, as vLLM counts it, TTFO at the first answer token, and reasoning tokens equal the
// simulator's. Simulator and gateway run in this process, so the simulator's ground truth is on the gateway's
// clock; the load generator runs as the real CLI, so its figures are checked per request against the truth's
// own intervals (first answer token - first token), which no clock offset touches.
//
// Tolerance: 25 ms per timestamp, the gateway's timing-fidelity bound (test/gateway/timing-fidelity.test.ts: a
// chunk crosses loopback and waits for an event loop, so it is seen late, never early).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RequestRecord as GatewayRecord } from '../../src/gateway/records/record.js';
import { type RequestTruth, type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { startGateway, type TestGateway } from '../gateway/helpers/gateway.js';
import { runCli } from '../helpers/run-cli.js';

const TOLERANCE_MS = 25;
const REASONING_TOKENS = 6;
const TIMING = { ttftMs: 40, itlMs: 30, prefillMsPerToken: 0, jitter: 0 };
const folder = mkdtempSync(join(tmpdir(), 'tokenmeter-reasoning-'));

interface Case {
  readonly name: string;
  readonly backend: string;
  readonly chatField: 'reasoning' | 'reasoning_content';
}
const CASES: Case[] = [
  { name: 'chat (reasoning)', backend: 'openai-chat', chatField: 'reasoning' },
  { name: 'chat (reasoning_content)', backend: 'openai-chat', chatField: 'reasoning_content' },
  { name: 'Responses', backend: 'openai-responses', chatField: 'reasoning' },
  { name: 'Messages', backend: 'anthropic-messages', chatField: 'reasoning' },
];

interface ClientRecord {
  readonly index: number;
  readonly outcome: string;
  readonly ttftMs: number | null;
  readonly ttfoMs: number | null;
  readonly reasoningTokens: number | null;
}

function within(actual: number | null | undefined, truth: number, what: string): void {
  assert.ok(typeof actual === 'number', `${what}: ${actual}`);
  const late = actual - truth;
  assert.ok(
    late >= -0.5 && late <= TOLERANCE_MS,
    `${what} ${actual.toFixed(2)} ms, truth ${truth.toFixed(2)} ms`,
  );
}

for (const c of CASES) {
  for (const engine of ['open-loop', 'closed-loop'] as const) {
    test(`${c.name}, ${engine}: TTFT at the first reasoning token, TTFO at the answer, reasoning tokens exact`, async () => {
      const sim: RunningSimulator = await startSimulator({
        timing: TIMING,
        reasoning: { tokens: REASONING_TOKENS, chatField: c.chatField },
      });
      const gateway: TestGateway = await startGateway({
        upstreams: [{ name: 'sim', baseUrl: `${sim.url}/v1`, keyless: true }],
      });
      try {
        const prefix = `r-${engine}-${c.backend}-${c.chatField}-`;
        const records = join(folder, `${prefix}records.jsonl`);
        const res = await runCli([
          'bench',
          '--backend',
          c.backend,
          '--base-url',
          gateway.url,
          '--model',
          'tokenmeter/sim-7b',
          '--dataset-name',
          'random',
          '--random-input-len',
          '16',
          '--random-output-len',
          '12',
          '--ignore-eos',
          '--num-prompts',
          '4',
          '--max-concurrency',
          '2',
          '--engine',
          engine,
          '--request-id-prefix',
          prefix,
          '--records-file',
          records,
          '--disable-tqdm',
        ]);
        assert.equal(res.code, 0, res.stderr + res.stdout);
        assert.match(res.stdout, /Requests that reasoned:\s+4/);
        assert.match(res.stdout, new RegExp(`Total reasoning tokens:\\s+${4 * REASONING_TOKENS}\\b`));
        const gatewayRecords: GatewayRecord[] = await gateway.recordsAfter(4);
        for (const record of gatewayRecords) {
          const truth = sim.truth(record.requestId) as RequestTruth;
          assert.ok(truth !== undefined, `truth of ${record.requestId}`);
          assert.equal(truth.reasoningTokens, REASONING_TOKENS);
          const t0 = record.receivedAtMonotonicMs;
          within(
            record.ttftMs,
            (truth.contentChunkEmittedAtMs[0] as number) - t0,
            `${record.requestId} gateway TTFT`,
          );
          within(
            record.ttfoMs,
            (truth.firstAnswerTokenAtMs as number) - t0,
            `${record.requestId} gateway TTFO`,
          );
          assert.equal(
            record.reasoningTokens,
            REASONING_TOKENS,
            `${record.requestId} gateway reasoning tokens`,
          );
        }
        const client = readFileSync(records, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as ClientRecord);
        assert.equal(client.length, 4);
        for (const record of client) {
          assert.equal(record.outcome, 'ok');
          const truth = sim.truth(`${prefix}${record.index}`) as RequestTruth;
          assert.ok(truth !== undefined, `truth of request ${record.index}`);
          const reasoned =
            (truth.firstAnswerTokenAtMs as number) - (truth.contentChunkEmittedAtMs[0] as number);
          const measured = (record.ttfoMs as number) - (record.ttftMs as number);
          // The reasoning part is REASONING_TOKENS chunks of itlMs each: a gap no network offset moves.
          assert.ok(
            Math.abs(measured - reasoned) <= TOLERANCE_MS,
            `request ${record.index}: reasoning ${measured.toFixed(2)} ms measured, ${reasoned.toFixed(2)} ms true`,
          );
          assert.ok(reasoned > TIMING.itlMs, `the simulator reasoned ${reasoned} ms`);
          assert.equal(
            record.reasoningTokens,
            REASONING_TOKENS,
            `request ${record.index} client reasoning tokens`,
          );
        }
      } finally {
        await gateway.close();
        await sim.close();
      }
    });
  }
}
