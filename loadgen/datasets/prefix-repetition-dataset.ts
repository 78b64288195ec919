// vLLM's `prefix_repetition` dataset: `numPrefixes` random prefixes, each shared by numPrompts / numPrefixes
// prompts (the first numPrompts mod numPrefixes prefixes one more), every prompt its prefix followed by a random
// suffix of its own, so a server with a prefix cache serves the prefix from cache after its first prompt.
//
// Drawn as vLLM's client draws it (PrefixRepetitionRandomDataset): numpy's legacy global state seeded with
// --seed, one `np.random.randint(0, vocabulary, prefixLen)` per prefix followed by one
// `randint(0, vocabulary, suffixLen)` for each of that prefix's prompts, then the list shuffled by Python's
// `random` seeded with --seed (unless --disable-shuffle). The state both are left in is handed on: vLLM's LoRA
// picks continue Python's, and its arrival gaps continue numpy's, after these draws.
//
// The vocabulary is tokenmeter's common words, one token each under the built-in tokenizer, so with it the
// prompts, lengths and order are exactly those vLLM's code gives for a tokenizer of that vocabulary
// (test/loadgen/vllm-schedule.test.ts). With a model's tokenizer vLLM draws ids over that tokenizer's
// vocabulary instead; here prefix and suffix are each fitted to their length (fitToTokens in
// loadgen/datasets/text-of-length.ts), so prompts of one prefix still begin with the same text.

import { UserFacingError } from '../../src/shared/user-facing-error.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';
import { NumpyRandomState } from '../vllm-random/numpy-random-state.js';
import { PythonRandom } from '../vllm-random/python-random.js';
import type { SampledDataset, SampleRequest } from './sample-request.js';
import { COMMON_WORDS, fitToTokens } from './text-of-length.js';

export interface PrefixRepetitionOptions {
  numPrompts: number;
  seed: number;
  tokenizer: Tokenizer;
  /** --prefix-repetition-prefix-len (vLLM default 256). */
  prefixLen?: number;
  /** --prefix-repetition-suffix-len (vLLM default 256). */
  suffixLen?: number;
  /** --prefix-repetition-num-prefixes (vLLM default 10). */
  numPrefixes?: number;
  /** --prefix-repetition-output-len (vLLM default 128). */
  outputLen?: number;
  /** --disable-shuffle: prompts grouped by prefix, in the order they were drawn. */
  disableShuffle?: boolean;
}

export const PREFIX_REPETITION_DEFAULTS = Object.freeze({
  prefixLen: 256,
  suffixLen: 256,
  numPrefixes: 10,
  outputLen: 128,
});

type Settings = Required<Omit<PrefixRepetitionOptions, 'tokenizer' | 'disableShuffle'>>;

function settingsOf(options: PrefixRepetitionOptions): Settings {
  const settings = {
    numPrompts: options.numPrompts,
    seed: options.seed,
    prefixLen: options.prefixLen ?? PREFIX_REPETITION_DEFAULTS.prefixLen,
    suffixLen: options.suffixLen ?? PREFIX_REPETITION_DEFAULTS.suffixLen,
    numPrefixes: options.numPrefixes ?? PREFIX_REPETITION_DEFAULTS.numPrefixes,
    outputLen: options.outputLen ?? PREFIX_REPETITION_DEFAULTS.outputLen,
  };
  for (const [flag, value, least] of [
    ['--prefix-repetition-prefix-len', settings.prefixLen, 0],
    ['--prefix-repetition-suffix-len', settings.suffixLen, 0],
    ['--prefix-repetition-num-prefixes', settings.numPrefixes, 1],
    ['--prefix-repetition-output-len', settings.outputLen, 1],
  ] as const) {
    if (!Number.isInteger(value) || value < least)
      throw new UserFacingError(`${flag} must be a whole number >= ${least}`);
  }
  if (settings.prefixLen + settings.suffixLen === 0)
    throw new UserFacingError(
      '--prefix-repetition-prefix-len and --prefix-repetition-suffix-len are both 0: every prompt would be empty',
    );
  // vLLM's own check (a prefix with no prompt would be drawn for nothing).
  if (settings.numPrompts < settings.numPrefixes)
    throw new UserFacingError(
      `prefix_repetition: --num-prompts (${settings.numPrompts}) must be at least --prefix-repetition-num-prefixes (${settings.numPrefixes})`,
    );
  return settings;
}

/** One prompt's vocabulary ids before any shuffle: its prefix's index and ids, then its own suffix ids. */
export interface PrefixRepetitionDraw {
  prefixIndex: number;
  prefixIds: number[];
  suffixIds: number[];
}

/** vLLM's draws, in its order, over a vocabulary of `vocabularySize` ids, and numpy's state after them. */
export function prefixRepetitionDraws(
  settings: Settings,
  vocabularySize: number,
): { draws: PrefixRepetitionDraw[]; numpyRandom: NumpyRandomState } {
  const numpyRandom = new NumpyRandomState(settings.seed);
  const perPrefix = Math.floor(settings.numPrompts / settings.numPrefixes);
  const remainder = settings.numPrompts % settings.numPrefixes;
  const draws: PrefixRepetitionDraw[] = [];
  for (let prefixIndex = 0; prefixIndex < settings.numPrefixes; prefixIndex++) {
    const prefixIds = numpyRandom.randint(0, vocabularySize, settings.prefixLen);
    const prompts = perPrefix + (prefixIndex < remainder ? 1 : 0);
    for (let k = 0; k < prompts; k++)
      draws.push({
        prefixIndex,
        prefixIds,
        suffixIds: numpyRandom.randint(0, vocabularySize, settings.suffixLen),
      });
  }
  return { draws, numpyRandom };
}

export function samplePrefixRepetition(options: PrefixRepetitionOptions): SampledDataset {
  const settings = settingsOf(options);
  const { tokenizer } = options;
  const vocabulary = COMMON_WORDS;
  const wordAt = (id: number): string => vocabulary[id % vocabulary.length] as string;
  /** The ids' words as text of `tokens` tokens, continued by the vocabulary's next words where a tokenizer
   *  needs more. */
  const textOf = (ids: readonly number[], tokens: number): string => {
    let nextId = (ids[ids.length - 1] ?? 0) + 1;
    return fitToTokens(tokenizer, ids.map(wordAt), () => wordAt(nextId++), tokens);
  };
  const { draws, numpyRandom } = prefixRepetitionDraws(settings, vocabulary.length);
  const prefixTexts = new Map<number, string>();
  const promptsOfPrefix = new Map<number, number>();
  const requests: SampleRequest[] = draws.map((draw) => {
    let prefix = prefixTexts.get(draw.prefixIndex);
    if (prefix === undefined) {
      prefix = textOf(draw.prefixIds, settings.prefixLen);
      prefixTexts.set(draw.prefixIndex, prefix);
    }
    const k = promptsOfPrefix.get(draw.prefixIndex) ?? 0;
    promptsOfPrefix.set(draw.prefixIndex, k + 1);
    const prompt = [prefix, textOf(draw.suffixIds, settings.suffixLen)]
      .filter((part) => part !== '')
      .join(' ');
    return {
      prompt,
      promptTokens: tokenizer.count(prompt),
      outputTokens: settings.outputLen,
      sourceId: `prefix-${draw.prefixIndex}-${k}`,
    };
  });
  const pythonRandom = new PythonRandom(settings.seed);
  if (options.disableShuffle !== true) pythonRandom.shuffle(requests);
  return {
    requests,
    notes: [
      `prefix_repetition: ${settings.numPrefixes} prefixes of ${settings.prefixLen} tokens, each followed by a suffix of ${settings.suffixLen}`,
    ],
    pythonRandom,
    numpyRandom,
  };
}
