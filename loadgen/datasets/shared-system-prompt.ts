// --shared-system-prompt-length N (AIPerf's name for it): every request of the run starts with the same N-token
// system prompt, the common case of an application whose every call carries one instruction block, and what a
// server's prefix cache serves after the first request. The text is common words drawn from a generator seeded
// with --seed, so the same seed gives the same prompt; it is laid over any dataset's requests, and each body puts
// it where its protocol has a place for it (src/protocols: a system message, `system`, `instructions`, or the
// start of a completions prompt).

import { hashSeed, SeededRandom } from '../../src/shared/random.js';
import { UserFacingError } from '../../src/shared/user-facing-error.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';
import type { SampledDataset } from './sample-request.js';
import { textOfTokens } from './text-of-length.js';

export interface SharedSystemPromptOptions {
  readonly tokens: number;
  readonly seed: number;
  readonly tokenizer: Tokenizer;
}

/** The run's system prompt: `tokens` tokens by the tokenizer, the same for the same seed. */
export function sharedSystemPrompt(options: SharedSystemPromptOptions): string {
  return textOfTokens(
    options.tokenizer,
    options.tokens,
    new SeededRandom(hashSeed('system-prompt', options.seed)),
  );
}

/** `dataset` with every request starting with the shared system prompt, its tokens counted in the prompt's. */
export function withSharedSystemPrompt<D extends SampledDataset>(
  dataset: D,
  options: SharedSystemPromptOptions,
): D {
  if (dataset.requests.some((request) => request.recordedBody !== undefined))
    throw new UserFacingError(
      '--shared-system-prompt-length cannot be added to recorded bodies, which are replayed as the client sent them; leave it out, or replay a records file kept without --record-bodies',
    );
  const systemPrompt = sharedSystemPrompt(options);
  const tokens = options.tokenizer.count(systemPrompt);
  return {
    ...dataset,
    requests: dataset.requests.map((request) => ({
      ...request,
      systemPrompt,
      promptTokens: request.promptTokens + tokens,
    })),
    notes: [
      ...dataset.notes,
      `every request starts with the same system prompt of ${tokens} tokens (--shared-system-prompt-length, seed ${options.seed})`,
    ],
  };
}
