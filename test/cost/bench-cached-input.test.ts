// bench's --price-cached-input against the prefix-caching simulator: requests sharing a long system prompt, sent
// one at a time, find it cached after the first; each record's cachedPromptTokens is the simulator's own count,
// and the run's cost charges those tokens the cached price (report row and tokenmeter.cost), equal to the records
// priced by hand. Without the flag every prompt token costs the input price, whatever the server cached.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { RequestRecord } from '../../loadgen/record.js';
import { type RequestTruth, type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { bench, cleanEnv, scratchDir } from '../loadgen/helpers/bench-cli.js';

const PRICE_INPUT = 2;
const PRICE_CACHED_INPUT = 0.5;
const PRICE_OUTPUT = 6;
const PROMPTS = 6;

let sim: RunningSimulator;

before(async () => {
  sim = await startSimulator({
    seed: 4,
    timing: { ttftMs: 2, prefillMsPerToken: 0.01, itlMs: 1, jitter: 0 },
    kv: { enablePrefixCaching: true },
  });
});
after(() => sim.close());

interface PricedRun {
  readonly stdout: string;
  readonly cost: Record<string, number | string>;
  readonly records: RequestRecord[];
}

async function pricedRun(prefix: string, priceFlags: string[]): Promise<PricedRun> {
  const dir = scratchDir();
  const run = await bench(
    [
      '--base-url',
      sim.url,
      '--dataset-name',
      'random',
      '--random-input-len',
      '24',
      '--random-output-len',
      '4',
      '--shared-system-prompt-length',
      '512',
      '--num-prompts',
      String(PROMPTS),
      // One at a time: each request's shared prompt is in the cache before the next one is admitted.
      '--max-concurrency',
      '1',
      '--request-id-prefix',
      prefix,
      '--disable-tqdm',
      '--save-result',
      '--result-dir',
      dir,
      '--result-filename',
      'run.json',
      ...priceFlags,
    ],
    cleanEnv(),
  );
  assert.equal(run.code, 0, run.stderr);
  const json = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as {
    tokenmeter: { cost: Record<string, number | string> };
  };
  const records = readFileSync(join(dir, 'run.records.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RequestRecord);
  assert.equal(records.length, PROMPTS);
  return { stdout: run.stdout, cost: json.tokenmeter.cost, records };
}

/** The records' prompt tokens (the server's count, as it bills) and, of them, those it said were cached. */
function promptTokensOf(records: RequestRecord[]): { input: number; cached: number; output: number } {
  let input = 0;
  let cached = 0;
  let output = 0;
  for (const record of records) {
    const prompt = record.usagePromptTokens ?? record.promptTokens;
    input += prompt;
    cached += Math.min(record.cachedPromptTokens ?? 0, prompt);
    output += record.outputTokens;
  }
  return { input, cached, output };
}

const close = (actual: unknown, expected: number): boolean =>
  typeof actual === 'number' && Math.abs(actual - expected) <= Math.abs(expected) * 1e-12;

test("--price-cached-input prices the server's cached prompt tokens, counted from each answer's usage", async () => {
  const prefix = 'priced-cached-';
  const { stdout, cost, records } = await pricedRun(prefix, [
    '--price-input',
    String(PRICE_INPUT),
    '--price-cached-input',
    String(PRICE_CACHED_INPUT),
    '--price-output',
    String(PRICE_OUTPUT),
  ]);
  for (const record of records) {
    const truth = sim.truth(`${prefix}${record.index}`) as RequestTruth;
    assert.equal(record.outcome, 'ok');
    assert.equal(
      record.cachedPromptTokens,
      truth.cachedTokens,
      `request ${record.index}: the simulator's count`,
    );
    // The shared 512-token system prompt (and the chat template's start) in whole 16-token blocks.
    if (record.index > 0)
      assert.ok(truth.cachedTokens >= 496, `request ${record.index}: ${truth.cachedTokens}`);
  }
  const tokens = promptTokensOf(records);
  assert.ok(tokens.cached > 0 && tokens.cached < tokens.input, `${tokens.cached} of ${tokens.input}`);
  const cachedCost = (tokens.cached * PRICE_CACHED_INPUT) / 1e6;
  const inputCost = ((tokens.input - tokens.cached) * PRICE_INPUT) / 1e6 + cachedCost;
  const outputCost = (tokens.output * PRICE_OUTPUT) / 1e6;
  assert.equal(cost['cached_input_per_million'], PRICE_CACHED_INPUT);
  assert.equal(cost['input_tokens'], tokens.input);
  assert.equal(cost['cached_input_tokens'], tokens.cached);
  assert.ok(close(cost['input_cost'], inputCost), `input_cost ${cost['input_cost']} against ${inputCost}`);
  assert.ok(close(cost['cached_input_cost'], cachedCost), `cached_input_cost ${cost['cached_input_cost']}`);
  assert.ok(close(cost['total_cost'], inputCost + outputCost), `total_cost ${cost['total_cost']}`);
  const row =
    /^Run cost \(USD\):\s+([\d.]+) \(input ([\d.]+), of which cached ([\d.]+), output ([\d.]+)\)$/m.exec(
      stdout,
    );
  assert.ok(row !== null, stdout);
  // Printed to four significant digits.
  assert.ok(Math.abs(Number(row[3]) - cachedCost) <= cachedCost * 5e-4, row[0]);
});

test('without --price-cached-input, cached prompt tokens cost the input price', async () => {
  const { stdout, cost, records } = await pricedRun('priced-plain-', [
    '--price-input',
    String(PRICE_INPUT),
    '--price-output',
    String(PRICE_OUTPUT),
  ]);
  const tokens = promptTokensOf(records);
  assert.ok(tokens.cached > 0, 'the server still cached the shared prompt');
  assert.equal(cost['cached_input_tokens'], tokens.cached);
  assert.equal(cost['cached_input_per_million'], undefined);
  assert.equal(cost['cached_input_cost'], undefined);
  assert.ok(
    close(cost['input_cost'], (tokens.input * PRICE_INPUT) / 1e6),
    `input_cost ${cost['input_cost']}`,
  );
  assert.match(stdout, /^Run cost \(USD\):\s+[\d.]+ \(input [\d.]+, output [\d.]+\)$/m);
});
