// --estimate against what a run then actually used, as the simulator counted it (its vLLM-named token counters:
// the server's side of the bill). The simulator is seeded and draws each answer's natural length from the seed
// and the prompt, so every number below is the same on every run; the tolerances are the errors measured on
// five dataset seeds (0-4, 40 prompts; seed 0 also with 200), with a margin:
//   input tokens: 5.9-7.1% below the server's count in every case: the server also counts the chat framing
//     (7 tokens a request here) that the tokenizer never sees in a bare prompt. Tolerance: 10% below, never above.
//   output, --ignore-eos: exact (every answer runs to the length asked for).
//   output, uncalibrated, answers free to end early: 18-34% above the actual count; it is an upper bound.
//   output, calibrated by --smoke's 5 answers: -22% to +4%; five answers are a small sample of how long answers
//     run. Tolerance: 25% either way.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { type RunningSimulator, startSimulator } from '../../src/sim/index.js';
import { bench, cleanEnv } from '../loadgen/helpers/bench-cli.js';
import { exactTiming } from '../loadgen/helpers/bench-fixtures.js';

const PROMPTS = '40';

let sim: RunningSimulator;

before(async () => {
  sim = await startSimulator({ timing: exactTiming(1, 0.2) });
});
after(() => sim.close());

/** The simulator's prompt and generation token counters. */
async function serverTokens(): Promise<{ prompt: number; output: number }> {
  const page = await (await request(`${sim.url}/metrics`)).body.text();
  const total = (name: string): number =>
    [...page.matchAll(new RegExp(`^vllm:${name}_total\\{[^}]*\\} (\\S+)$`, 'gm'))].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
  return { prompt: total('prompt_tokens'), output: total('generation_tokens') };
}

interface EstimateLine {
  input: number;
  output: number;
  calibrated: boolean;
}

function parseEstimate(text: string): EstimateLine {
  const match =
    /^estimate( \(calibrated[^)]*\))?: [\d,]+ requests, ([\d,]+) input tokens, (?:up to )?([\d,]+) output tokens/m.exec(
      text,
    );
  assert.ok(match !== null, `no estimate line in: ${text}`);
  const count = (s: string | undefined): number => Number((s ?? '').replaceAll(',', ''));
  return { input: count(match[2]), output: count(match[3]), calibrated: match[1] !== undefined };
}

/** The tokens one real run used, by the server's counters. */
async function actualRun(seed: string, extra: string[]): Promise<{ prompt: number; output: number }> {
  const before = await serverTokens();
  const run = await bench(
    [
      '--base-url',
      sim.url,
      '--num-prompts',
      PROMPTS,
      '--seed',
      seed,
      '--disable-tqdm',
      '--no-records',
      ...extra,
    ],
    cleanEnv(),
  );
  assert.equal(run.code, 0, run.stderr);
  const after = await serverTokens();
  return { prompt: after.prompt - before.prompt, output: after.output - before.output };
}

async function estimate(seed: string, extra: string[]): Promise<EstimateLine> {
  const before = await serverTokens();
  const run = await bench(
    ['--base-url', sim.url, '--num-prompts', PROMPTS, '--seed', seed, '--estimate', ...extra],
    cleanEnv(),
  );
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(await serverTokens(), before, '--estimate sent nothing');
  return parseEstimate(run.stdout);
}

function assertInputClose(estimated: number, actual: number): void {
  const error = (estimated - actual) / actual;
  assert.ok(
    error <= 0 && error >= -0.1,
    `input: estimated ${estimated}, server counted ${actual} (${error})`,
  );
}

test('with --ignore-eos the output estimate is exact and the input within 10% below the server', async () => {
  const predicted = await estimate('1', ['--ignore-eos']);
  const actual = await actualRun('1', ['--ignore-eos']);
  assert.equal(predicted.output, actual.output);
  assertInputClose(predicted.input, actual.prompt);
});

test('answers that end early: the estimate is an upper bound, and --smoke calibrates it to within 25%', async () => {
  const predicted = await estimate('0', []);
  assert.equal(predicted.calibrated, false);
  const smoke = await bench(
    [
      '--base-url',
      sim.url,
      '--num-prompts',
      PROMPTS,
      '--seed',
      '0',
      '--smoke',
      '--disable-tqdm',
      '--no-records',
    ],
    cleanEnv(),
  );
  assert.equal(smoke.code, 0, smoke.stderr);
  const calibrated = parseEstimate(smoke.stdout);
  assert.equal(calibrated.calibrated, true);
  assert.equal(calibrated.input, predicted.input, 'the same prompts: the full run, not the smoke run');
  const actual = await actualRun('0', []);
  assertInputClose(predicted.input, actual.prompt);
  assert.ok(predicted.output >= actual.output, `upper bound: ${predicted.output} >= ${actual.output}`);
  const error = (calibrated.output - actual.output) / actual.output;
  assert.ok(Math.abs(error) <= 0.25, `calibrated ${calibrated.output}, actual ${actual.output} (${error})`);
});
