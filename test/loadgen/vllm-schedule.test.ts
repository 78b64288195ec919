// vLLM's seeded schedule, reproduced: fixtures/vllm-009e6d4a/schedule/ holds what vLLM's own code (commit
// 009e6d4a, see the README there) sampled and scheduled for 3 seeds x (ShareGPT at 40 and 70 prompts, random,
// prefix_repetition) x (burstiness 1, 0.5, 2, a linear and an exponential ramp-up). Our datasets must give the
// same prompts in the same order (ShareGPT: the conversation ids, oversampled copies included; random: the
// sampled lengths, offsets, prefix ids and, for the built-in tokenizer's vocabulary, the prompt text itself;
// prefix_repetition: the prompt text and lengths, shuffled and not), the same LoRA module per request, and
// intended send times equal to vLLM's, bit for bit (prefix_repetition's gaps continue numpy's state after its
// token draws, as vLLM's do).

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { arrivalSchedule, type RampUp } from '../../loadgen/arrivals.js';
import { loraModelNames } from '../../loadgen/bench/prepare-requests.js';
import { samplePrefixRepetition } from '../../loadgen/datasets/prefix-repetition-dataset.js';
import { randomDraws, sampleRandom } from '../../loadgen/datasets/random-dataset.js';
import type { SampledDataset } from '../../loadgen/datasets/sample-request.js';
import { sampleShareGpt } from '../../loadgen/datasets/sharegpt-sampler.js';
import { builtinTokenizer } from '../../loadgen/tokenizer/tokenizer.js';
import { PythonRandom } from '../../loadgen/vllm-random/python-random.js';

interface Schedule {
  name: string;
  request_rate: number | 'inf';
  burstiness: number;
  ramp_up_strategy: RampUp['strategy'] | null;
  ramp_up_start_rps: number | null;
  ramp_up_end_rps: number | null;
  send_times_s: number[];
  rates_rps: number[];
}

interface Fixture {
  dataset: 'sharegpt' | 'random' | 'prefix_repetition';
  seed: number;
  num_prompts: number;
  dataset_path?: string;
  random_input_len?: number;
  random_output_len?: number;
  random_range_ratio?: number;
  random_prefix_len?: number;
  prefix_len?: number;
  suffix_len?: number;
  num_prefixes?: number;
  output_len?: number;
  /** prefix_repetition with --disable-shuffle: the prompts as drawn, grouped by prefix. */
  unshuffled_prompts?: string[];
  lora_modules: string[];
  requests: Array<{ source_id?: string; prompt?: string; prompt_len: number; expected_output_len: number }>;
  lora_choices: string[];
  input_lens?: number[];
  output_lens?: number[];
  offsets?: number[];
  prefix_token_ids?: number[];
  schedules: Schedule[];
}

const folder = new URL('../../../test/loadgen/fixtures/vllm-009e6d4a/schedule/', import.meta.url);
const fixtures = readdirSync(folder)
  .filter((name) => /-n\d+-seed\d+\.json$/.test(name))
  .sort();

test('the fixtures are all there: 3 seeds x (ShareGPT 40, ShareGPT 70, random, prefix_repetition)', () => {
  assert.equal(fixtures.length, 12, fixtures.join(', '));
});

const prefixRepetitionOf = (f: Fixture, disableShuffle = false): SampledDataset =>
  samplePrefixRepetition({
    numPrompts: f.num_prompts,
    seed: f.seed,
    tokenizer: builtinTokenizer,
    prefixLen: f.prefix_len as number,
    suffixLen: f.suffix_len as number,
    numPrefixes: f.num_prefixes as number,
    outputLen: f.output_len as number,
    disableShuffle,
  });

async function ourDataset(f: Fixture): Promise<SampledDataset> {
  if (f.dataset === 'prefix_repetition') return prefixRepetitionOf(f);
  if (f.dataset === 'sharegpt')
    return sampleShareGpt({
      path: fileURLToPath(new URL(f.dataset_path as string, folder)),
      numPrompts: f.num_prompts,
      seed: f.seed,
      tokenizer: builtinTokenizer,
    });
  return sampleRandom({
    numPrompts: f.num_prompts,
    seed: f.seed,
    tokenizer: builtinTokenizer,
    inputLen: f.random_input_len as number,
    outputLen: f.random_output_len as number,
    rangeRatio: f.random_range_ratio as number,
    prefixLen: f.random_prefix_len as number,
  });
}

for (const name of fixtures) {
  const f = JSON.parse(readFileSync(new URL(name, folder), 'utf8')) as Fixture;

  test(`${name}: the same prompts in the same order as vLLM, and the same LoRA module per request`, async () => {
    const dataset = await ourDataset(f);
    assert.equal(dataset.requests.length, f.requests.length);
    if (f.dataset === 'sharegpt') {
      assert.deepEqual(
        dataset.requests.map((r) => r.sourceId),
        f.requests.map((r) => r.source_id),
      );
    } else if (f.dataset === 'prefix_repetition') {
      assert.deepEqual(
        dataset.requests.map((r) => [r.prompt, r.promptTokens, r.outputTokens]),
        f.requests.map((r) => [r.prompt, r.prompt_len, r.expected_output_len]),
      );
      assert.deepEqual(
        prefixRepetitionOf(f, true).requests.map((r) => r.prompt),
        f.unshuffled_prompts,
      );
    } else {
      assert.deepEqual(
        randomDraws(
          {
            numPrompts: f.num_prompts,
            seed: f.seed,
            inputLen: f.random_input_len as number,
            outputLen: f.random_output_len as number,
            rangeRatio: f.random_range_ratio as number,
            prefixLen: f.random_prefix_len as number,
          },
          220,
          0,
        ),
        {
          inputLens: f.input_lens,
          outputLens: f.output_lens,
          offsets: f.offsets,
          prefixIds: f.prefix_token_ids,
        },
      );
      assert.deepEqual(
        dataset.requests.map((r) => r.prompt),
        f.requests.map((r) => r.prompt),
      );
      assert.deepEqual(
        dataset.requests.map((r) => [r.promptTokens, r.outputTokens]),
        f.requests.map((r) => [r.prompt_len, r.expected_output_len]),
      );
    }
    const random = dataset.pythonRandom ?? new PythonRandom(f.seed);
    assert.deepEqual(loraModelNames(f.requests.length, f.lora_modules, 'random', random), f.lora_choices);
  });

  for (const s of f.schedules) {
    test(`${name}, ${s.name}: intended send times equal to vLLM's, bit for bit`, async () => {
      const { numpyRandom } = await ourDataset(f);
      const ours = arrivalSchedule(f.requests.length, {
        ...(numpyRandom === undefined ? {} : { numpyRandom }),
        requestRate: s.request_rate === 'inf' ? Number.POSITIVE_INFINITY : s.request_rate,
        burstiness: s.burstiness,
        seed: f.seed,
        ...(s.ramp_up_strategy === null
          ? {}
          : {
              rampUp: {
                strategy: s.ramp_up_strategy,
                startRps: s.ramp_up_start_rps as number,
                endRps: s.ramp_up_end_rps as number,
              },
            }),
      });
      assert.equal(ours.offsetsMs.length, s.send_times_s.length);
      for (let i = 0; i < s.send_times_s.length; i++) {
        const theirs = s.send_times_s[i] as number;
        // vLLM's seconds in our milliseconds: the product is the one our schedule computes, so equal means equal.
        assert.equal(
          ours.offsetsMs[i],
          theirs * 1000,
          `request ${i}: ${ours.offsetsMs[i]} ms against vLLM's ${theirs} s`,
        );
        assert.ok(Math.abs((ours.ratesRps[i] as number) - (s.rates_rps[i] as number)) <= 1e-9, `rate ${i}`);
      }
    });
  }
}
