// vLLM's `random` dataset: synthetic prompts of controlled length. Input and output lengths are drawn uniformly
// from [floor(len x (1 - ratio)), ceil(len x (1 + ratio))] (ratio 0 = fixed length), and an optional shared
// prefix of `prefixLen` tokens opens every prompt (to exercise prefix caching). vLLM builds prompts from random
// token ids; we build them from common words, which any tokenizer counts reliably.

import { hashSeed, SeededRandom } from '../../src/shared/random.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';
import type { SampledDataset, SampleRequest } from './sample-request.js';
import { textOfTokens } from './text-of-length.js';

export interface RandomDatasetOptions {
  numPrompts: number;
  seed: number;
  tokenizer: Tokenizer;
  /** --random-input-len (vLLM default 1024). */
  inputLen?: number;
  /** --random-output-len (vLLM default 128). */
  outputLen?: number;
  /** --random-range-ratio in [0, 1) (vLLM default 0). */
  rangeRatio?: number;
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

export function sampleRandom(options: RandomDatasetOptions): SampledDataset {
  const inputLen = options.inputLen ?? RANDOM_DATASET_DEFAULTS.inputLen;
  const outputLen = options.outputLen ?? RANDOM_DATASET_DEFAULTS.outputLen;
  const rangeRatio = options.rangeRatio ?? RANDOM_DATASET_DEFAULTS.rangeRatio;
  const prefixLen = options.prefixLen ?? RANDOM_DATASET_DEFAULTS.prefixLen;
  if (!(rangeRatio >= 0 && rangeRatio < 1)) {
    throw new UserFacingError(`--random-range-ratio must be at least 0 and below 1, got ${rangeRatio}`);
  }
  for (const [flag, value] of [
    ['--random-input-len', inputLen],
    ['--random-output-len', outputLen],
    ['--random-prefix-len', prefixLen],
  ] as const) {
    if (!Number.isInteger(value) || value < 0)
      throw new UserFacingError(`${flag} must be a whole number >= 0`);
  }

  const random = new SeededRandom(hashSeed('random-dataset', options.seed));
  const [inputLow, inputHigh] = lengthRange(inputLen, rangeRatio, 0);
  const [outputLow, outputHigh] = lengthRange(outputLen, rangeRatio, 1);
  const prefix = textOfTokens(options.tokenizer, prefixLen, random);
  const requests: SampleRequest[] = [];
  for (let i = 0; i < options.numPrompts; i++) {
    const body = textOfTokens(options.tokenizer, random.int(inputLow, inputHigh), random);
    const prompt = prefix === '' ? body : body === '' ? prefix : `${prefix} ${body}`;
    requests.push({
      prompt,
      promptTokens: options.tokenizer.count(prompt),
      outputTokens: random.int(outputLow, outputHigh),
      sourceId: `random-${i}`,
    });
  }
  return { requests, notes: [] };
}
