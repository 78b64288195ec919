// Builds filler text of a wanted token length for the given tokenizer, from seeded common words. Exact for the
// built-in rule (one word = one token); for a real tokenizer it corrects by adding or removing words until the
// count matches, which converges in a few steps because common words are single tokens there too.

import type { SeededRandom } from '../../src/shared/random.js';
import type { Tokenizer } from '../tokenizer/tokenizer.js';
import { COMMON_WORDS } from './common-words.js';

const MAX_CORRECTIONS = 64;

function word(random: SeededRandom): string {
  return COMMON_WORDS[random.int(0, COMMON_WORDS.length - 1)] as string;
}

/** Text of about `tokens` tokens (exactly, whenever the corrections converge); '' for 0. */
export function textOfTokens(tokenizer: Tokenizer, tokens: number, random: SeededRandom): string {
  if (tokens <= 0) return '';
  const words: string[] = [];
  for (let i = 0; i < tokens; i++) words.push(word(random));
  for (let step = 0; step < MAX_CORRECTIONS; step++) {
    const count = tokenizer.count(words.join(' '));
    if (count === tokens) break;
    if (count > tokens)
      words.length = Math.max(1, words.length - Math.max(1, Math.floor((count - tokens) / 2)));
    else for (let i = 0; i < Math.max(1, Math.floor((tokens - count) / 2)); i++) words.push(word(random));
  }
  return words.join(' ');
}
