// Prompts for a trace that carries no text, only lengths and prefix block ids (Mooncake's `hash_ids`): block id h
// always becomes the same run of words, so two requests whose traces share their first k ids share their first
// k blocks of prompt text, and a server's prefix cache sees the sharing the trace recorded. Words come from the
// common-word list (one token each under the built-in rule and, with a leading space, in the common BPE
// vocabularies), so a block of N words is about N tokens for any tokenizer and exactly N for the built-in one.

import { hashSeed, SeededRandom } from '../../src/shared/random.js';
import { COMMON_WORDS } from '../datasets/text-of-length.js';

/** Mooncake's traces hash prompts in blocks of 512 tokens. */
export const DEFAULT_TRACE_BLOCK_TOKENS = 512;

function words(count: number, random: SeededRandom, into: string[]): void {
  for (let i = 0; i < count; i++) into.push(COMMON_WORDS[random.int(0, COMMON_WORDS.length - 1)] as string);
}

export interface BlockPromptOptions {
  readonly blockTokens: number;
  /** Seeds the text of the part no block id covers, which belongs to this request alone. */
  readonly uniqueSalt: string;
  /**
   * A last block cut short is text of its own, not the start of its id's full block: vLLM's timed_trace keys each
   * block by id and length, so a cut block shares no prefix with the whole one.
   */
  readonly cutBlockOwnText?: boolean;
}

/**
 * A prompt of `inputTokens` words: block i is block id `hashIds[i]`'s words (the last one cut to what is left), and
 * the tokens past the last id are words of this request's own. Memoizing blocks is left out on purpose: a block is
 * a few hundred draws, and a trace of a million lines would otherwise hold every distinct block in memory.
 */
export function blockPrompt(
  hashIds: readonly number[],
  inputTokens: number,
  options: BlockPromptOptions,
): string {
  const out: string[] = [];
  for (const id of hashIds) {
    const left = inputTokens - out.length;
    if (left <= 0) break;
    const length = Math.min(options.blockTokens, left);
    const seed =
      options.cutBlockOwnText === true && length < options.blockTokens
        ? hashSeed('trace-block', id, length)
        : hashSeed('trace-block', id);
    words(length, new SeededRandom(seed), out);
  }
  const rest = inputTokens - out.length;
  if (rest > 0) words(rest, new SeededRandom(hashSeed('trace-unique', options.uniqueSalt)), out);
  return out.join(' ');
}
