// vLLM's `random` dataset: synthetic prompts of controlled length, drawn as vLLM's client draws them. With
// numpy's `default_rng(seed)` (loadgen/vllm-random), in vLLM's order: every request's input length, then every
// output length, uniform in [floor(len x (1 - ratio)), ceil(len x (1 + ratio))] (no draw at all when the range
// is a single value), then every vocabulary offset, then the shared prefix's `prefixLen` token ids. Request i's
// prompt is the prefix followed by vocabulary entries offset + i, offset + i + 1, ... (wrapping round).
//
// The vocabulary is tokenmeter's common words (COMMON_WORDS in loadgen/datasets/text-of-length.ts), one token
// each under the built-in tokenizer, so with it the lengths, offsets, prefix and prompt text are exactly
// those vLLM's code gives for a tokenizer of that vocabulary (test/loadgen/vllm-schedule.test.ts). vLLM
// builds prompts from the model tokenizer's own ids instead, so with a real tokenizer the lengths are still
// vLLM's but the offsets are drawn over 220 entries rather than the model's vocabulary, and the text differs;
// where a word is not one token there, words are added or dropped at the end until the count is right, as
// vLLM re-encodes and pads.

import { UserFacingError } from '../../src/shared/user-facing-error.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';
import { NumpyGenerator } from '../vllm-random/numpy-generator.js';
import type { SampledDataset, SampleRequest } from './sample-request.js';
import { COMMON_WORDS, fitToTokens } from './text-of-length.js';

export interface RandomDatasetOptions {
  numPrompts: number;
  seed: number;
  tokenizer: Tokenizer;
  /** --random-input-len (vLLM default 1024). */
  inputLen?: number;
  /** --random-output-len (vLLM default 128). */
  outputLen?: number;
  /** --random-range-ratio in [0, 1) (vLLM default 0): of the input lengths, and of the output lengths unless
   *  outputRangeRatio is given (its JSON form, `{"input": 0.3, "output": 0.5}`). */
  rangeRatio?: number;
  outputRangeRatio?: number;
  /** --random-prefix-len (vLLM default 0). */
  prefixLen?: number;
}

export const RANDOM_DATASET_DEFAULTS = Object.freeze({
  inputLen: 1024,
  outputLen: 128,
  rangeRatio: 0,
  prefixLen: 0,
});

/** Inclusive bounds of the uniform length draw. */
export function lengthRange(length: number, rangeRatio: number, minimum: number): [number, number] {
  return [Math.max(minimum, Math.floor(length * (1 - rangeRatio))), Math.ceil(length * (1 + rangeRatio))];
}

/** What vLLM samples before it builds any text: per request lengths and offsets, and the prefix ids. */
export interface RandomDraws {
  inputLens: number[];
  outputLens: number[];
  offsets: number[];
  prefixIds: number[];
}

/** vLLM's draws for a vocabulary of `vocabularySize` entries and a tokenizer adding `specialTokens` per prompt. */
export function randomDraws(
  options: Required<Omit<RandomDatasetOptions, 'tokenizer' | 'outputRangeRatio'>> &
    Pick<RandomDatasetOptions, 'outputRangeRatio'>,
  vocabularySize: number,
  specialTokens: number,
): RandomDraws {
  const rng = new NumpyGenerator(options.seed);
  const [inputLow, inputHigh] = lengthRange(
    Math.max(0, options.inputLen - specialTokens),
    options.rangeRatio,
    0,
  );
  const [outputLow, outputHigh] = lengthRange(
    options.outputLen,
    options.outputRangeRatio ?? options.rangeRatio,
    1,
  );
  const inputLens = rng.integers(inputLow, inputHigh + 1, options.numPrompts);
  const outputLens = rng.integers(outputLow, Math.max(outputHigh, 1) + 1, options.numPrompts);
  const offsets = rng.integers(0, vocabularySize, options.numPrompts);
  const prefixIds = options.prefixLen > 0 ? rng.integers(0, vocabularySize, options.prefixLen) : [];
  return { inputLens, outputLens, offsets, prefixIds };
}

export function sampleRandom(options: RandomDatasetOptions): SampledDataset {
  const settings = {
    numPrompts: options.numPrompts,
    seed: options.seed,
    inputLen: options.inputLen ?? RANDOM_DATASET_DEFAULTS.inputLen,
    outputLen: options.outputLen ?? RANDOM_DATASET_DEFAULTS.outputLen,
    rangeRatio: options.rangeRatio ?? RANDOM_DATASET_DEFAULTS.rangeRatio,
    outputRangeRatio: options.outputRangeRatio ?? options.rangeRatio ?? RANDOM_DATASET_DEFAULTS.rangeRatio,
    prefixLen: options.prefixLen ?? RANDOM_DATASET_DEFAULTS.prefixLen,
  };
  for (const ratio of [settings.rangeRatio, settings.outputRangeRatio])
    if (!(ratio >= 0 && ratio < 1))
      throw new UserFacingError(`--random-range-ratio must be at least 0 and below 1, got ${ratio}`);
  for (const [flag, value] of [
    ['--random-input-len', settings.inputLen],
    ['--random-output-len', settings.outputLen],
    ['--random-prefix-len', settings.prefixLen],
  ] as const) {
    if (!Number.isInteger(value) || value < 0)
      throw new UserFacingError(`${flag} must be a whole number >= 0`);
  }
  const { tokenizer } = options;
  // vLLM subtracts the tokens the tokenizer adds (a BOS) so that the server sees --random-input-len in all.
  const specialTokens = tokenizer.count('', { addSpecialTokens: true });
  const vocabulary = COMMON_WORDS;
  const draws = randomDraws(settings, vocabulary.length, specialTokens);
  const wordAt = (id: number): string => vocabulary[id % vocabulary.length] as string;
  const prefixWords = draws.prefixIds.map(wordAt);
  const requests: SampleRequest[] = [];
  for (let i = 0; i < settings.numPrompts; i++) {
    const inputLen = draws.inputLens[i] as number;
    const start = (draws.offsets[i] as number) + i;
    const words = [...prefixWords];
    for (let k = 0; k < inputLen; k++) words.push(wordAt(start + k));
    let nextId = start + inputLen;
    const wanted = settings.prefixLen + inputLen;
    const prompt = fitToTokens(tokenizer, words, () => wordAt(nextId++), wanted);
    requests.push({
      prompt,
      promptTokens: tokenizer.count(prompt),
      outputTokens: draws.outputLens[i] as number,
      sourceId: `random-${i}`,
    });
  }
  return { requests, notes: [] };
}
