// The run's cost in bench's report and result JSON: a priced run against the simulator carries a cost row (after
// our extras, vLLM's block untouched) and tokenmeter.cost, equal to its own records priced by hand; an unpriced
// run carries neither; half a price, a cost limit without one and an unknown currency are refused before sending.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { RequestRecord } from '../../loadgen/record.js';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { bench, cleanEnv, scratchDir } from '../loadgen/helpers/bench-cli.js';
import { exactTiming } from '../loadgen/helpers/bench-fixtures.js';

const PRICE_INPUT = 0.5;
const PRICE_OUTPUT = 1.5;

let sim: RunningSimulator;

before(async () => {
  sim = await startSimulator({ seed: 1, timing: exactTiming(2, 0.5) });
});
after(() => sim.close());

function runFlags(dir: string): string[] {
  return [
    '--base-url',
    sim.url,
    '--num-prompts',
    '8',
    '--disable-tqdm',
    '--save-result',
    '--result-dir',
    dir,
    '--result-filename',
    'run.json',
  ];
}

function readRun(dir: string): { json: Record<string, unknown>; records: RequestRecord[] } {
  const json = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as Record<string, unknown>;
  const records = readFileSync(join(dir, 'run.records.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RequestRecord);
  return { json, records };
}

test('a priced run reports its cost in the summary and the result JSON, equal to its records priced by hand', async () => {
  const dir = scratchDir();
  const run = await bench(
    [
      ...runFlags(dir),
      '--price-input',
      String(PRICE_INPUT),
      '--price-output',
      String(PRICE_OUTPUT),
      '--currency',
      'EUR',
    ],
    cleanEnv(),
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stderr,
    /^estimate: 8 requests, [\d,]+ input tokens, up to [\d,]+ output tokens .*; cost up to [\d.]+ EUR/m,
  );
  const { json, records } = readRun(dir);
  assert.equal(records.length, 8);
  let input = 0;
  let output = 0;
  for (const record of records) {
    assert.equal(record.outcome, 'ok');
    input += record.usagePromptTokens ?? record.promptTokens; // the server's count, as it bills
    output += record.outputTokens;
  }
  const inputCost = (input * PRICE_INPUT) / 1e6;
  const outputCost = (output * PRICE_OUTPUT) / 1e6;
  const tokenmeter = json['tokenmeter'] as Record<string, unknown>;
  assert.deepEqual(tokenmeter['cost'], {
    currency: 'EUR',
    input_per_million: PRICE_INPUT,
    output_per_million: PRICE_OUTPUT,
    answered_requests: 8,
    input_tokens: input,
    cached_input_tokens: 0, // the simulator without its prefix cache reports no cached tokens
    output_tokens: output,
    input_cost: inputCost,
    output_cost: outputCost,
    total_cost: inputCost + outputCost,
  });
  // vLLM's keys are there as before, and count the same tokens.
  assert.equal(json['total_input_tokens'], input);
  assert.equal(json['total_output_tokens'], output);
  assert.equal(tokenmeter['budget_stop'], undefined);
  const row = /^Run cost \(EUR\):\s+([\d.]+) \(input ([\d.]+), output ([\d.]+)\)$/m.exec(run.stdout);
  assert.ok(row !== null, run.stdout);
  // Printed to four significant digits.
  const close = (printed: string | undefined, exact: number): boolean =>
    Math.abs(Number(printed) - exact) <= exact * 5e-4;
  assert.ok(close(row[1], inputCost + outputCost), `total ${row[1]}`);
  assert.ok(close(row[2], inputCost) && close(row[3], outputCost), row[0]);
  // After vLLM's block and our extras: the block itself has no cost line.
  const vllmBlock = run.stdout.slice(0, run.stdout.indexOf(' tokenmeter extras '));
  assert.doesNotMatch(vllmBlock, /cost/i);
});

test('an unpriced run has no cost row, no cost key and no estimate line', async () => {
  const dir = scratchDir();
  const run = await bench(runFlags(dir), cleanEnv());
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(run.stdout, /Run cost/);
  assert.doesNotMatch(run.stderr, /^estimate/m);
  const tokenmeter = readRun(dir).json['tokenmeter'] as Record<string, unknown>;
  assert.equal(tokenmeter['cost'], undefined);
});

test('prices that cannot be honoured are refused before anything is sent (exit 2)', async () => {
  const refusals: [string[], RegExp][] = [
    [['--price-input', '1'], /--price-input and --price-output go together/],
    [['--price-input', '1', '--price-output', '2', '--currency', 'usd'], /ISO 4217 .*did you mean USD/],
    [['--max-cost', '1'], /--max-cost needs the prices/],
    [['--price-cached-input', '0.1'], /--price-cached-input needs --price-input and --price-output/],
    [
      ['--engine', 'closed-loop', '--max-total-tokens', '100'],
      /closed-loop engine cannot stop sending and let answers finish: add --on-limit cancel/,
    ],
    [['--estimate', '--smoke'], /--estimate sends nothing, --smoke sends 5 prompts/],
  ];
  for (const [flags, message] of refusals) {
    const run = await bench(['--base-url', 'http://127.0.0.1:9', '--model', 'm', ...flags], cleanEnv());
    assert.equal(run.code, 2, `${flags.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
  }
});
